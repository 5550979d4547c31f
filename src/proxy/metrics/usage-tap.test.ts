import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { tapAnswer, UsageTap } from './usage-tap.js';

const feed = (tap: UsageTap, text: string, size: number) => {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size) tap.push(bytes.subarray(at, at + size));
  return tap.result();
};

describe('usage tap', () => {
  it('finds the usage event in a stream cut anywhere, and the last report wins', () => {
    const stream = [
      'event: message_start',
      `data: ${JSON.stringify({ type: 'message_start', message: { usage: { input_tokens: 5, cache_read_input_tokens: 10 } } })}`,
      '',
      'event: content_block_delta',
      `data: ${JSON.stringify({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'x'.repeat(5000) } })}`,
      '',
      'event: message_delta',
      `data: ${JSON.stringify({ type: 'message_delta', usage: { input_tokens: 6, cache_read_input_tokens: 10, output_tokens: 3 } })}`,
      '',
      '',
    ].join('\n');
    for (const size of [1, 7, 64, 100_000])
      expect(feed(new UsageTap('text/event-stream'), stream, size)).toEqual({
        input: 6,
        cacheRead: 10,
        cacheWrite: 0,
      });
    const chat = `data: {"choices":[],"usage":null}\n\ndata: {"choices":[],"usage":{"prompt_tokens":321}}\n\ndata: [DONE]\n\n`;
    expect(feed(new UsageTap('text/event-stream; charset=utf-8'), chat, 3)).toEqual({
      input: 321,
      cacheRead: 0,
      cacheWrite: 0,
    });
  });

  it('reads a JSON answer whole, and keeps nothing of what it cannot use', () => {
    const json = JSON.stringify({ type: 'message', usage: { input_tokens: 9, output_tokens: 1 } });
    expect(feed(new UsageTap('application/json'), json, 5)).toEqual({
      input: 9,
      cacheRead: 0,
      cacheWrite: 0,
    });
    expect(feed(new UsageTap('application/json'), '{"broken', 5)).toBeUndefined();
    expect(new UsageTap(undefined).result()).toBeUndefined();
    // A line far longer than any usage event is skipped, not kept: the next event still counts.
    const long = `data: ${'y'.repeat(3 << 20)}\n\ndata: {"usage":{"prompt_tokens":8}}\n\n`;
    expect(feed(new UsageTap('text/event-stream'), long, 1 << 16)).toEqual({
      input: 8,
      cacheRead: 0,
      cacheWrite: 0,
    });
  });
});

describe('usage tap behind a content encoding', () => {
  const answer = JSON.stringify({ type: 'message', usage: { input_tokens: 41, cache_read_input_tokens: 1 } });
  const stream = `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { usage: { input_tokens: 7 } } })}\n\n`;
  const feed = async (headers: Record<string, string>, bytes: Buffer, size = 5) => {
    const tap = tapAnswer(headers);
    for (let at = 0; at < bytes.length; at += size) tap.push(bytes.subarray(at, at + size));
    return tap.result();
  };

  it('reads gzip, deflate and brotli answers and streams', async () => {
    const json = { 'content-type': 'application/json' };
    expect(await feed({ ...json, 'content-encoding': 'gzip' }, gzipSync(answer))).toEqual({
      input: 41,
      cacheRead: 1,
      cacheWrite: 0,
    });
    expect(await feed({ ...json, 'content-encoding': 'deflate' }, deflateSync(answer))).toEqual({
      input: 41,
      cacheRead: 1,
      cacheWrite: 0,
    });
    expect(await feed({ ...json, 'content-encoding': 'br' }, brotliCompressSync(answer))).toEqual({
      input: 41,
      cacheRead: 1,
      cacheWrite: 0,
    });
    expect(
      await feed({ 'content-type': 'text/event-stream', 'content-encoding': 'gzip' }, gzipSync(stream), 3),
    ).toEqual({ input: 7, cacheRead: 0, cacheWrite: 0 });
    expect(await feed(json, Buffer.from(answer))).toEqual({ input: 41, cacheRead: 1, cacheWrite: 0 });
  });

  it('gives up, never throws, on what it cannot decode', async () => {
    const json = { 'content-type': 'application/json' };
    expect(
      await feed({ ...json, 'content-encoding': 'gzip' }, Buffer.from('not gzip at all')),
    ).toBeUndefined();
    expect(await feed({ ...json, 'content-encoding': 'zstd' }, Buffer.from(answer))).toBeUndefined();
    // A bomb: 100 MB of zeros in a few hundred KB stops at the bound.
    const bomb = gzipSync(Buffer.alloc(100 << 20));
    expect(await feed({ ...json, 'content-encoding': 'gzip' }, bomb, 1 << 16)).toBeUndefined();
  });
});
