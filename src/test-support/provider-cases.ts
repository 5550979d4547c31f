import { describe, expect, it } from 'vitest';
import type { ProviderExamples, ProviderSet, ProviderSpec } from '../providers/index.js';
import { contentText, spliceJson } from '../text/index.js';

/** Reads an error body the way an API's official SDK does: the type and message it saw. */
export type SdkErrorReader = (status: number, body: unknown) => Promise<{ type: unknown; message: string }>;

const COLLAPSED = '[spillway: 3 lines kept of 400] <<sw:0123456789abcdef>>';

/** The bytes of a body as a client may send them: indented, so every byte left alone is seen. */
const bytesOf = (body: unknown) => Buffer.from(JSON.stringify(body, null, 2));

/**
 * The cases every provider's spec passes, run for each one in the set it is registered in (as
 * hono runs one router suite against every router): its requests are its own and no other's,
 * its view round-trips a body and writes a collapsed result back in place, its error body reads
 * in its SDK, its usage reads from a real answer, its conversation key holds across turns.
 *
 * @example
 * for (const spec of PROVIDERS.specs) providerCases(spec, examples, PROVIDERS, SDK_READERS[spec.api]);
 */
export function providerCases(
  spec: ProviderSpec,
  examples: ProviderExamples,
  set: ProviderSet,
  sdk?: SdkErrorReader | string,
): void {
  const { request, answer } = examples;
  describe(`provider ${spec.api}`, () => {
    it('recognises its own model requests, and no other provider claims them', () => {
      expect(set.call('POST', request.path)).toMatchObject({ api: spec.api });
      expect(set.call('GET', request.path)).toBeUndefined();
      const claimed = set.specs.filter((s) => Object.hasOwn(s.paths, request.path) || s.call?.(request.path));
      expect(claimed.map((s) => s.api)).toEqual([spec.api]);
      // Its path and headers send it, and its credential, to its own upstream only.
      expect([...set.named(request.path, request.headers)]).toEqual([spec.upstream.key]);
      expect(set.carriesCredential(request.path, request.headers)).toBe(true);
      expect(URL.canParse(spec.upstream.url)).toBe(true);
      expect(set.defaultUpstreams[spec.upstream.key]).toBeDefined();
      for (const path of Object.keys(spec.paths)) expect(set.call('POST', path)?.api).toBe(spec.api);
    });

    it('reads its tool results, and a body left alone goes back byte for byte', () => {
      const raw = bytesOf(request.body);
      const parsed = JSON.parse(raw.toString('utf8')) as unknown;
      const view = spec.adapter.view(parsed);
      expect(view?.api).toBe(spec.api);
      expect(view?.results.length).toBeGreaterThan(0);
      expect(view?.apply(new Map())).toEqual([]);
      expect(spliceJson(raw, parsed, [])?.equals(raw)).toBe(true);
      if (spec.saved) expect(set.savedApiOf(request.body)).toBe(spec.api);
    });

    it('writes a collapsed result back in place, every other byte kept', () => {
      const raw = bytesOf(request.body);
      const parsed = JSON.parse(raw.toString('utf8')) as unknown;
      const view = spec.adapter.view(parsed);
      if (!view) throw new Error(`${spec.api} reads none of its own example`);
      const out = spliceJson(raw, parsed, view.apply(new Map([[0, COLLAPSED]])));
      if (!out) throw new Error('the edit could not be spliced into the bytes');
      // The bytes differ in one span only: the result's value.
      let start = 0;
      while (start < raw.length && raw[start] === out[start]) start++;
      let end = 0;
      while (end < raw.length - start && raw[raw.length - 1 - end] === out[out.length - 1 - end]) end++;
      expect(out.subarray(start, out.length - end).toString()).toContain('[spillway: 3 lines kept');
      expect(raw.subarray(start, raw.length - end).toString()).toContain('FAIL');
      const again = spec.adapter.view(JSON.parse(out.toString('utf8')));
      expect(again?.results.map((r) => contentText(r.content))).toEqual([
        COLLAPSED,
        ...view.results.slice(1).map((r) => contentText(r.content)),
      ]);
      expect(JSON.parse(out.toString('utf8'))).toEqual(parsed);
    });

    it("reads its calls' arguments and writes new ones back in the API's own form", () => {
      const raw = bytesOf(request.body);
      const parsed = JSON.parse(raw.toString('utf8')) as unknown;
      const view = spec.adapter.view(parsed);
      const call = view?.calls[0];
      if (!view || !call) throw new Error(`${spec.api} reads no tool call in its example`);
      const cleared = call.freeform ? 'cleared' : JSON.stringify({ cleared: true });
      const out = spliceJson(raw, parsed, view.applyCalls(new Map([[0, cleared]])));
      if (!out) throw new Error('the new arguments could not be spliced into the bytes');
      const again = spec.adapter.view(JSON.parse(out.toString('utf8')));
      expect(again?.calls[0]?.text).toBe(cleared);
      expect(again?.calls.slice(1)).toEqual(view.calls.slice(1));
      expect(again?.results.map((r) => r.content)).toEqual(view.results.map((r) => r.content));
    });

    it('keeps its conversation under one key, its seed stable as turns are added', () => {
      const items = request.body[spec.conversationKey];
      if (!Array.isArray(items)) throw new Error(`the example has no "${spec.conversationKey}" array`);
      const first = spec.adapter.view(structuredClone(request.body));
      const next = structuredClone(request.body);
      (next[spec.conversationKey] as unknown[]).push(structuredClone(items.at(-1)));
      const second = spec.adapter.view(next);
      expect(first?.messageCount).toBe(items.length);
      expect(second?.messageCount).toBe(items.length + 1);
      expect(second?.sessionSeed).toBe(first?.sessionSeed);
      expect(second?.clientSession).toBe(first?.clientSession);
    });

    it('reads the output room a request asks for', () => {
      expect(spec.maxOutput(request.body)).toBeGreaterThan(0);
      expect(spec.maxOutput({})).toBeUndefined();
    });

    it('reads usage from a real answer, and only its own', () => {
      const body = answer.body as Record<string, unknown>;
      expect(spec.usage(body)).toEqual(answer.usage);
      expect(set.usageOf(answer.body)).toEqual(answer.usage);
      // The usage tap finds the event by its mark before it parses it.
      expect(JSON.stringify(answer.body)).toContain(spec.usageMark);
      for (const other of set.specs)
        if (other.api !== spec.api) expect(other.usage(body), other.api).toBeUndefined();
    });

    it('prices its own models', () => {
      for (const model of Object.keys(spec.prices))
        expect(set.priceOf(`${model}-20260101`)?.price).toEqual(spec.prices[model]);
    });

    it('offers the recall tool in its own form and reads it back', async () => {
      const tool = { name: 'spillway_expand', description: 'Recalls', inputSchema: { type: 'object' } };
      const dialect = (await spec.recall())(tool);
      const tools = Array.isArray(request.body.tools) ? request.body.tools : [];
      const offered = { ...request.body, tools: [...tools, JSON.parse(dialect.toolJson)] };
      expect(dialect.toolNames(offered)).toContain('spillway_expand');
      expect(dialect.toolNames(request.body)).not.toContain('spillway_expand');
    });

    const message = `spillway: the body is over the limit (${spec.api})`;
    it('answers errors in a shape that holds the message where SDKs read it', () => {
      const error = spec.errorBody('request_too_large', message) as { error?: { message?: unknown } };
      expect(error.error?.message).toBe(message);
    });
    it.skipIf(typeof sdk !== 'function')(
      `answers errors its official SDK reads${typeof sdk === 'string' ? ` (skipped: ${sdk})` : ''}`,
      async () => {
        const read = sdk as SdkErrorReader;
        const seen = await read(413, spec.errorBody('request_too_large', message));
        expect(seen.type).toBe('request_too_large');
        expect(seen.message).toContain(message);
      },
    );
  });
}
