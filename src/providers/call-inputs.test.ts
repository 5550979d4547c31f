import { describe, expect, it } from 'vitest';
import { spliceJson } from '../text/json-splice.js';
import type { ApiName } from './index.js';
import { ADAPTERS } from './index.js';

const CONTENT = 'export const a = 1;\n'.repeat(200);
const CLEARED =
  '[tool input cleared: Write content, 1400 tokens; spillway_expand id abc recalls it] <<sw:abc>>';
const NEW_ARGS = JSON.stringify({ file_path: 'a.ts', content: CLEARED });

/**
 * One body per API spillway shipped with: an old Write call (and its result) and a newer small
 * call. Every provider's example runs the same clearing in the shared cases (provider-cases.ts).
 */
const BODIES: Partial<Record<ApiName, unknown>> = {
  anthropic: {
    model: 'claude-sonnet-4-5',
    messages: [
      { role: 'user', content: 'write a.ts' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'Write', input: { file_path: 'a.ts', content: CONTENT } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'ls' } }],
      },
    ],
  },
  'openai-chat': {
    model: 'gpt-4o',
    messages: [
      { role: 'user', content: 'write a.ts' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'Write', arguments: JSON.stringify({ file_path: 'a.ts', content: CONTENT }) },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_2', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } },
        ],
      },
    ],
  },
  'openai-responses': {
    model: 'gpt-5',
    input: [
      { role: 'user', content: 'write a.ts' },
      {
        type: 'function_call',
        call_id: 'call_1',
        name: 'Write',
        arguments: JSON.stringify({ file_path: 'a.ts', content: CONTENT }),
      },
      { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
      {
        type: 'custom_tool_call',
        call_id: 'call_2',
        name: 'apply_patch',
        input: '*** Begin Patch\n*** End Patch',
      },
    ],
  },
  gemini: {
    contents: [
      { role: 'user', parts: [{ text: 'write a.ts' }] },
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'Write', args: { file_path: 'a.ts', content: CONTENT } },
            thoughtSignature: 'sig',
          },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'Write', response: { output: 'ok' } } }] },
      { role: 'model', parts: [{ functionCall: { name: 'Bash', args: { command: 'ls' } } }] },
    ],
  },
};

/** Where each API keeps the first call's arguments after the rewrite. */
function firstArguments(api: ApiName, body: unknown): unknown {
  if (api === 'anthropic') return dig(body, 'messages', 1, 'content', 0, 'input');
  if (api === 'openai-chat') return dig(body, 'messages', 1, 'tool_calls', 0, 'function', 'arguments');
  if (api === 'openai-responses') return dig(body, 'input', 1, 'arguments');
  return dig(body, 'contents', 1, 'parts', 0, 'functionCall', 'args');
}

function dig(value: unknown, ...path: (string | number)[]): unknown {
  return path.reduce<unknown>((v, key) => (v as Record<string | number, unknown> | undefined)?.[key], value);
}

describe('tool calls in request bodies', () => {
  for (const api of Object.keys(BODIES) as ApiName[]) {
    it(`${api}: lists the calls with their arguments as text, and writes new arguments back in the API's own form`, () => {
      const raw = Buffer.from(JSON.stringify(BODIES[api], null, 1));
      const parsed = JSON.parse(raw.toString('utf8'));
      const view = ADAPTERS[api].view(parsed);
      expect(view?.calls.map((c) => [c.tool, c.position])).toEqual([
        ['Write', 1],
        [api === 'openai-responses' ? 'apply_patch' : 'Bash', 3],
      ]);
      expect(JSON.parse(view?.calls[0]?.text ?? '')).toEqual({ file_path: 'a.ts', content: CONTENT });
      expect(view?.calls[1]?.freeform).toBe(api === 'openai-responses');
      const edits = view?.applyCalls(new Map([[0, NEW_ARGS]])) ?? [];
      const body = JSON.parse(spliceJson(raw, parsed, edits)?.toString('utf8') ?? 'null');
      const args = firstArguments(api, body);
      // Objects stay objects (Anthropic input, Gemini args), OpenAI's arguments stay a JSON string.
      expect(typeof args === 'string' ? JSON.parse(args) : args).toEqual({
        file_path: 'a.ts',
        content: CLEARED,
      });
      expect(typeof args).toBe(api.startsWith('openai') ? 'string' : 'object');
      // Everything else is as it was.
      const before = JSON.parse(raw.toString('utf8'));
      const strip = (b: unknown) => JSON.stringify(b).replace(JSON.stringify(firstArguments(api, b)), '');
      expect(strip(body)).toBe(strip(before));
    });
  }

  it('a freeform custom tool input is written back as text', () => {
    const parsed = JSON.parse(JSON.stringify(BODIES['openai-responses']));
    const view = ADAPTERS['openai-responses'].view(parsed);
    view?.applyCalls(new Map([[1, CLEARED]]));
    expect(parsed.input[3].input).toBe(CLEARED);
  });
});
