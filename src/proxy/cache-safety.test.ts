import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../engine/config.js';
import { ADAPTERS } from '../providers/index.js';
import { readTranscript } from '../replay/readers/index.js';
import { FileStore } from '../store/backends/file-store.js';
import { CORPUS_MISSING, corpusAvailable, corpusFiles } from '../test-support/corpus.js';
import { type BodyApi, messagesOf, requestBody } from '../test-support/request-bodies.js';
import { startUpstream, type TestUpstream } from '../test-support/upstream.js';
import { isTextBlock, textOf } from '../text/blocks.js';
import { MASK_PREFIX, markerIds } from '../text/markers.js';
import { type RunningProxy, startProxy } from './server.js';

let upstream: TestUpstream;
let proxy: RunningProxy;

beforeAll(async () => {
  upstream = await startUpstream();
  const store = new FileStore({
    base: join(mkdtempSync(join(tmpdir(), 'sw-cache-')), 'tool-results'),
    pruneOnFirstSpill: false,
  });
  proxy = await startProxy({
    config: resolveEngineConfig({ preset: 'balanced' }),
    store,
    port: 0,
    upstreams: { anthropic: upstream.url, openai: upstream.url },
    log: () => {},
  });
});
afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

async function expandAll(id: string): Promise<string> {
  let text = '';
  for (let offset = 0; ; ) {
    const page = await (
      await fetch(`${proxy.url}/expand?id=${encodeURIComponent(id)}&offset=${offset}`)
    ).text();
    const footer = /\n\[bytes (\d+)-(\d+) of (\d+);[^\]]*\]$/.exec(page);
    if (!footer) throw new Error(`no footer: ${page.slice(-120)}`);
    text += page.slice(0, footer.index);
    offset = Number(footer[2]);
    if (offset >= Number(footer[3])) return text;
  }
}

const apiOf = (format: string): BodyApi =>
  format === 'claude-code' ? 'anthropic' : format === 'codex' ? 'openai-responses' : 'openai-chat';

describe.skipIf(!corpusAvailable)(
  'cache safety over real requests: every corpus transcript through the proxy',
  () => {
    for (const file of corpusFiles()) {
      it(file.slice(file.indexOf('corpus/') + 7), async () => {
        const { format, conversations } = readTranscript(readFileSync(file, 'utf8'), file);
        const api = apiOf(format);
        for (const [n, conversation] of conversations.entries()) {
          let previous: string[] = [];
          let rewrites = 0;
          for (let turn = 1; turn <= conversation.turns.length; turn++) {
            const { path, body } = requestBody(api, conversation, turn);
            const res = await fetch(`${proxy.url}${path}`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                'x-spillway-session': `cache-${n}-${file.length}-${conversation.turns.length}`,
              },
              body: JSON.stringify(body),
            });
            expect(res.status).toBe(200);
            await res.arrayBuffer();
            const sent = upstream.seen.at(-1);
            const messages = messagesOf(sent?.json);
            // Everything the upstream saw last turn comes again byte for byte, in the same places,
            // except old results masked in a batch (balanced's mask stage, 10 at a time).
            const changed = previous.filter((m, i) => messages[i] !== m);
            if (changed.length > 0) {
              maskBatches++;
              for (const [i, m] of previous.entries())
                if (messages[i] !== m)
                  expect(messages[i], `${conversation.id} turn ${turn}`).toContain(MASK_PREFIX);
            }
            expect(messages.length).toBeGreaterThanOrEqual(previous.length);
            if (sent && sent.body.length < Buffer.byteLength(JSON.stringify(body))) rewrites++;
            previous = messages;
          }
          expect(previous.length).toBeGreaterThan(0);
          // Every marker the proxy wrote over the whole conversation recalls its exact original
          // through /expand, paged to the end.
          const { body } = requestBody(api, conversation, conversation.turns.length);
          const sentResults = ADAPTERS[api].view(body)?.results ?? [];
          const upResults = ADAPTERS[api].view(upstream.seen.at(-1)?.json)?.results ?? [];
          expect(upResults.length).toBe(sentResults.length);
          for (const [i, up] of upResults.entries()) {
            const original = sentResults[i]?.content ?? '';
            // A marker recalls the whole original, or (blocks shortened each in place) its block.
            const originals = [
              textOf(original) ?? JSON.stringify(original),
              ...(typeof original === 'string' ? [] : original.filter(isTextBlock).map((b) => b.text)),
            ];
            for (const id of markerIds(textOf(up.content) ?? JSON.stringify(up.content))) {
              markersChecked++;
              expect(originals, `${conversation.id} ${up.id}`).toContain(await expandAll(id));
            }
          }
          totalRewrites += rewrites;
        }
      });
    }
  },
);

let markersChecked = 0;
let totalRewrites = 0;
let maskBatches = 0;
afterAll(() => {
  // The corpus has results over budget: the check above must have had markers to recall.
  if (corpusAvailable) {
    expect(totalRewrites).toBeGreaterThan(50);
    expect(markersChecked).toBeGreaterThan(50);
    // The prefix moves only at mask batches, and those are few.
    expect(maskBatches).toBeGreaterThan(0);
    expect(maskBatches).toBeLessThan(totalRewrites);
  }
});

if (!corpusAvailable) {
  describe('cache safety', () => {
    it.skip(CORPUS_MISSING, () => {});
  });
}
