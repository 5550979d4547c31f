import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/backends/memory-store.js';
import { recallAll } from '../store/recall/recall.js';
import type { StoreEntry } from '../store/store.js';
import { markerIds } from '../text/markers.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { isToolData } from './events.js';
import { collapsePruner, pruneSession } from './prune-session.js';
import { Session } from './session.js';

const tmp = () => join(mkdtempSync(join(tmpdir(), 'sw-session-')), 'session.jsonl');
const big = (n: number, ch = 'x') => Array.from({ length: n }, (_, i) => `${ch} line ${i}`).join('\n');
const config = { thresholdChars: 1000, headChars: 300, tailChars: 200 };

async function conversation(session: Session, sizes: number[]) {
  await session.append({ role: 'user', content: 'fix the build' });
  for (const [i, n] of sizes.entries()) {
    await session.append({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { cmd: `step ${i}` } }],
    });
    await session.append({
      role: 'tool',
      toolCallId: `t${i}`,
      toolName: 'Bash',
      content: big(n, String.fromCharCode(97 + i)),
      exitCode: i,
    });
  }
}

describe('Session', () => {
  it('appends with contiguous seq and derives Anthropic and OpenAI messages', async () => {
    const s = Session.memory();
    await conversation(s, [3, 4]);
    expect(s.events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    const messages = s.deriveMessages();
    expect(messages[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't0', content: big(3, 'a') }],
    });
    expect(s.deriveOpenAIMessages()[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 't0', type: 'function', function: { name: 'Bash', arguments: '{"cmd":"step 0"}' } }],
    });
    expect(s.deriveOpenAIMessages()[2]).toEqual({ role: 'tool', tool_call_id: 't0', content: big(3, 'a') });
  });

  it('rejects replacements outside the surface', async () => {
    const s = Session.memory();
    await s.append({ role: 'user', content: 'x' });
    await expect(s.replace(0, 2, { role: 'user', content: 'y' })).rejects.toThrow(
      /replace \[0, 2\) is not a range of the surface \(0 to 1\)/,
    );
  });
});

describe('pruneSession (the dsh seed cases)', () => {
  it('replaces over-budget results: the original leaves the surface, all data but content kept, provenance recorded', async () => {
    const s = Session.memory();
    await conversation(s, [10, 300, 20, 400]);
    const before = s.surface().map((n) => n.seq);
    const r = await pruneSession(s, { config });
    expect(r.pruned.map((p) => [p.originalSeq, p.callId])).toEqual([
      [4, 't1'],
      [8, 't3'],
    ]);
    expect(r.saved).toBe(r.pruned.reduce((n, p) => n + p.charsBefore - p.charsAfter, 0));
    for (const p of r.pruned) expect(p.charsAfter).toBeLessThanOrEqual(1000);
    const surface = s.surface().map((n) => n.seq);
    expect(surface).not.toContain(4);
    expect(surface).not.toContain(8);
    expect(surface.length).toBe(before.length);
    const replacement = s.events[r.pruned[0]?.replacementSeq as number];
    expect(replacement?.op).toEqual({ type: 'replace', start: 4, end: 5 });
    expect(replacement?.sources).toEqual([4]);
    expect(replacement?.data).toMatchObject({
      role: 'tool',
      toolCallId: 't1',
      toolName: 'Bash',
      exitCode: 1,
    });
    expect(s.shadowedBy().get(4)).toBe(r.pruned[0]?.replacementSeq);
  });

  it('does nothing on a second pass', async () => {
    const s = Session.memory();
    await conversation(s, [300, 400]);
    await pruneSession(s, { config });
    expect(await pruneSession(s, { config })).toEqual({ pruned: [], saved: 0 });
  });

  it('honours protectRecent and minSaved', async () => {
    const s = Session.memory();
    await conversation(s, [300, 400]);
    expect((await pruneSession(s, { config, minSaved: 1_000_000 })).pruned).toEqual([]);
    const r = await pruneSession(s, { config, protectRecent: 1 });
    expect(r.pruned.map((p) => p.callId)).toEqual(['t0']);
  });

  it('stashes the removed middle when given a store, and its marker recalls it', async () => {
    const s = Session.memory();
    const store = new MemoryStore();
    await conversation(s, [300]);
    const r = await pruneSession(s, { config, store });
    const content = s.surface().at(-1)?.data.content as string;
    const id = markerIds(content)[0] as string;
    const original = big(300, 'a');
    expect(original.startsWith(content.slice(0, 300))).toBe(true);
    const middle = (await recallAll(id, { store })).toString();
    expect(original).toContain(middle);
    expect(middle.length + 500).toBe(original.length);
    expect(r.pruned).toHaveLength(1);
  });

  it("stores the pass's stashes as one batch before any replacement, and changes nothing if the store refuses", async () => {
    const s = Session.memory();
    const batches: number[] = [];
    let before = 0;
    const store = new (class extends MemoryStore {
      override async putAllIfAbsent(entries: readonly StoreEntry[]): Promise<number> {
        batches.push(entries.length);
        expect(s.events.length).toBe(before); // no replacement appended yet
        let n = 0;
        for (const { key, body } of entries) if (await this.putIfAbsent(key, body)) n++;
        return n;
      }
    })();
    await conversation(s, [300, 400, 500]);
    before = s.events.length;
    const r = await pruneSession(s, { config, store });
    expect(batches).toEqual([3]);
    expect(r.pruned).toHaveLength(3);
    for (const node of s.surface().filter((n) => isToolData(n.data)))
      expect(
        (await recallAll(markerIds(node.data.content as string)[0] as string, { store })).length,
      ).toBeGreaterThan(0);

    const full = new MemoryStore({ maxTotalBytes: 10 });
    const t = Session.memory();
    await conversation(t, [300, 400]);
    const unchanged = t.events.length;
    await expect(pruneSession(t, { config, store: full })).rejects.toMatchObject({ code: 'SPILLWAY_QUOTA' });
    expect(t.events).toHaveLength(unchanged);
  });

  it('can prune with collapse instead', async () => {
    const s = Session.memory();
    const store = new MemoryStore();
    await conversation(s, [3000]);
    const o200k = getTokenizer('o200k');
    const r = await pruneSession(s, {
      pruner: collapsePruner({ maxTokens: 500, tokenizer: 'o200k' }, store),
    });
    expect(r.pruned).toHaveLength(1);
    const content = s.surface().at(-1)?.data.content as string;
    expect(o200k.count(content)).toBeLessThanOrEqual(500);
    expect((await recallAll(markerIds(content)[0] as string, { store })).toString()).toBe(big(3000, 'a'));
  });
});

describe('Session persistence', () => {
  it('replaying the log from disk gives identical messages', async () => {
    const path = tmp();
    const s = await Session.open(path);
    await conversation(s, [300, 5, 400]);
    await pruneSession(s, { config });
    const messages = JSON.stringify(s.deriveMessages());
    await s.close();
    const again = await Session.open(path);
    expect(JSON.stringify(again.deriveMessages())).toBe(messages);
    expect(again.events).toHaveLength(s.events.length);
    await again.close();
  });

  it('keeps the replacements made before a rejected one, after reload', async () => {
    const path = tmp();
    let replacements = 0;
    const s = await Session.open(path, {
      validate: (event) =>
        event.op.type === 'replace' && ++replacements === 2 ? 'read-only from here' : undefined,
    });
    await conversation(s, [300, 400, 500]);
    await expect(pruneSession(s, { config })).rejects.toThrow(
      /the session rejected event 8: read-only from here/,
    );
    await s.close();
    const again = await Session.open(path);
    const replaced = again.events.filter((e) => e.op.type === 'replace');
    expect(replaced).toHaveLength(1);
    expect(replaced[0]?.sources).toEqual([2]);
    await again.close();
  });

  it('drops and reports a torn last line, and names a corrupt line in the middle', async () => {
    const path = tmp();
    const s = await Session.open(path);
    await conversation(s, [2]);
    await s.close();
    appendFileSync(path, '{"seq":3,"op":{"type":"app');
    const torn = await Session.open(path);
    expect(torn.torn).toEqual({ line: 4, bytes: 26 });
    expect(torn.events).toHaveLength(3);
    await torn.append({ role: 'user', content: 'after the crash' });
    await torn.close();
    const reopened = await Session.open(path);
    expect(reopened.events.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    await reopened.close();
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[1] = '{corrupt';
    writeFileSync(path, lines.join('\n'));
    await expect(Session.open(path)).rejects.toThrow(/line 2 is corrupt \(not JSON\)/);
  });

  it('loads read-only without writing: a line being written is left out, then read once finished', async () => {
    const path = tmp();
    const s = await Session.open(path);
    await conversation(s, [2]);
    await s.close();
    // A writer in the middle of an append: half a line on disk.
    const line = `${JSON.stringify({ seq: 3, op: { type: 'append' }, data: { role: 'user', content: 'late' } })}\n`;
    appendFileSync(path, line.slice(0, 20));
    const before = readFileSync(path);
    const shown = await Session.load(path);
    expect(shown.torn).toEqual({ line: 4, bytes: 20 });
    expect(shown.events).toHaveLength(3);
    await expect(shown.append({ role: 'user', content: 'x' })).rejects.toThrow(/loaded read-only/);
    expect(readFileSync(path).equals(before)).toBe(true);
    // The writer finishes its line: every event loads.
    appendFileSync(path, line.slice(20));
    expect((await Session.load(path)).events.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    // A log that is not there is an error, and is not created.
    const missing = join(path, '..', 'missing.jsonl');
    await expect(Session.load(missing)).rejects.toThrow(/no session log at .*missing\.jsonl/);
    expect(existsSync(missing)).toBe(false);
  });

  it('reads a log as a stream: lines across chunk boundaries, a line of megabytes', async () => {
    const path = tmp();
    const s = await Session.open(path);
    const big = 'z'.repeat(3 * 1024 * 1024 + 17);
    for (let i = 0; i < 50; i++)
      await s.append({ role: 'tool', toolCallId: `c${i}`, content: i === 20 ? big : `r${i}` });
    await s.close();
    const loaded = await Session.load(path);
    expect(loaded.events).toHaveLength(50);
    expect(loaded.events[20]?.data.content).toBe(big);
  });

  it('two processes appending to one log keep seq contiguous and lose nothing', async () => {
    const path = tmp();
    const writer = (name: string) => `
      import { Session } from ${JSON.stringify(new URL('./session.ts', import.meta.url).pathname)};
      const s = await Session.open(${JSON.stringify(path)});
      for (let i = 0; i < 60; i++) await s.append({ role: 'user', content: '${name}' + i });
      await s.close();
    `;
    const run = (name: string) =>
      new Promise<number | null>((done) =>
        spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', writer(name)], {
          stdio: ['ignore', 'ignore', 'inherit'],
        }).on('exit', done),
      );
    expect(await Promise.all([run('a'), run('b')])).toEqual([0, 0]);
    const all = await Session.load(path);
    expect(all.events.map((e) => e.seq)).toEqual(Array.from({ length: 120 }, (_, i) => i));
    const contents = all.events.map((e) => e.data.content as string);
    for (const name of ['a', 'b'])
      expect(contents.filter((c) => c.startsWith(name))).toEqual(
        Array.from({ length: 60 }, (_, i) => `${name}${i}`),
      );
  });

  it('reloads every complete event and nothing else after a process is killed mid-append', async () => {
    const path = tmp();
    const script = `
      import { Session } from ${JSON.stringify(new URL('./session.ts', import.meta.url).pathname)};
      const s = await Session.open(${JSON.stringify(path)});
      const body = 'y'.repeat(2 * 1024 * 1024);
      for (let i = 0; ; i++) {
        await s.append({ role: 'tool', toolCallId: 'c' + i, content: body });
        process.stdout.write(i + '\\n');
      }
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    const exited = new Promise((r) => child.on('exit', r));
    const deadline = Date.now() + 30_000;
    while (out.split('\n').length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    // Wait a moment into the next append, then kill: the last line is most likely half-written.
    await new Promise((r) => setTimeout(r, 3));
    child.kill('SIGKILL');
    await exited;
    const acknowledged = out.split('\n').filter(Boolean).map(Number);
    const s = await Session.open(path);
    const seqs = s.events.map((e) => e.seq);
    // Every append that returned is there; everything there is complete and contiguous.
    expect(seqs.length).toBeGreaterThanOrEqual(acknowledged.length);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i));
    for (const e of s.events) expect((e.data.content as string).length).toBe(2 * 1024 * 1024);
    await s.close();
  });
});
