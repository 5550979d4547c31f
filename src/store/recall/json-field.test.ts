import { describe, expect, it } from 'vitest';
import { collapseText } from '../../collapse/index.js';
import { stashId } from '../../text/content-hash.js';
import { getTokenizer } from '../../text/tokenizers/index.js';
import { MemoryStore } from '../backends/memory-store.js';
import { expand } from './expand.js';
import { pointerTokens } from './json-field.js';

const o200k = getTokenizer('o200k');

// What an AI SDK or LangChain tool returns: an object whose string holds a build log.
const log = Array.from({ length: 3000 }, (_, i) =>
  i === 1800 ? "src/pay.c:88:5: error: 'total' undeclared (first use in this function)" : `cc -c src/m${i}.c`,
).join('\n');
const result = JSON.stringify({ exitCode: 2, stdout: log, stderr: 'make: *** [all] Error 2\n' });

async function collapsed() {
  const store = new MemoryStore();
  const id = stashId(result);
  const out = await collapseText(
    result,
    { budget: 1000 },
    {
      tokenizer: o200k,
      id: () => id,
      stash: async () => store.putIfAbsent({ dir: 'pruned', name: id }, Buffer.from(result)),
    },
  );
  if (out.action !== 'acted') throw new Error('not collapsed');
  return { store, id, text: out.text };
}

describe('recalling the lines of a string inside a JSON result', () => {
  it('gives back the lines of the string a collapsed JSON numbered, by the field its header names', async () => {
    const { store, id, text } = await collapsed();
    expect(text).toContain('spillway_expand with field "/stdout" and lines "A-B"');
    // A gap marker inside the string numbers the string's lines.
    const gap = /lines (\d+)-(\d+) of 3000 omitted/.exec(text);
    if (!gap) throw new Error(`no gap marker: ${text.slice(0, 400)}`);
    const [from, to] = [Number(gap[1]), Number(gap[2])];
    const first = Math.max(from, to - 4);
    const got = await expand(store, { id, field: '/stdout', lines: `${first}-${to}` });
    const lines = log.split('\n');
    const want = lines.slice(first - 1, to).map((line, i) => `${first + i}:${line}`);
    expect(got.split('\n').slice(0, -1)).toEqual(want);
    expect(got.split('\n').at(-1)).toBe(`[lines ${first}-${to} of 3000]`);
    // grep reads the string's lines too: the error's line number is the string's.
    expect(await expand(store, { id, field: '/stdout', grep: 'undeclared', context: 0 })).toMatch(
      /^1801:src\/pay\.c:88:5: error: 'total' undeclared/,
    );
  });

  it('refuses a field that is not a JSON pointer, names nothing, or is no string, and one without lines', async () => {
    const { store, id } = await collapsed();
    await expect(expand(store, { id, field: 'stdout', lines: '1-2' })).rejects.toThrow(/JSON pointer/);
    await expect(expand(store, { id, field: '/stdin', lines: '1-2' })).rejects.toThrow(/nothing at \/stdin/);
    await expect(expand(store, { id, field: '/exitCode', lines: '1-2' })).rejects.toThrow(/not a string/);
    await expect(expand(store, { id, field: '/stdout' })).rejects.toThrow(/with lines or grep/);
    const plain = new MemoryStore();
    await plain.putIfAbsent({ dir: 'pruned', name: 'notjson' }, Buffer.from('a\nb\n'));
    await expect(expand(plain, { id: 'pruned/notjson', field: '/x', lines: '1' })).rejects.toThrow(
      /not JSON/,
    );
  });

  it('reads a pointer as RFC 6901 does', () => {
    expect(pointerTokens('/a~1b/0/~0x')).toEqual(['a/b', '0', '~x']);
    expect(pointerTokens('')).toEqual([]);
    expect(() => pointerTokens('/a~2')).toThrow(/JSON pointer/);
  });
});
