import { type Content, contentText, isRecord, type JsonEdit, type ToolResult } from '../../text/index.js';
import { CallSlots } from '../call-slots.js';
import { type CallTable, LatestWords, resultOf, seedOf } from '../shared.js';
import type { RequestAdapter, RequestView } from '../view.js';

type Rec = Record<string, unknown>;

/** Where a result's text lives: `response.output` (Gemini CLI), or the whole `response` as JSON. */
type Slot = { holder: Rec; field: 'output' | 'response' };

/**
 * The text of a functionResponse's `response` as spillway sees it: its `output` string (where
 * Gemini CLI puts a tool's text), else the response as JSON.
 *
 * @example
 * functionResponseText({ output: 'make: ok' }); // 'make: ok'
 */
export function functionResponseText(response: Rec): string {
  return typeof response.output === 'string' ? response.output : JSON.stringify(response);
}

/**
 * Gemini `generateContent` / `streamGenerateContent` / `countTokens`: results are
 * `contents[].parts[].functionResponse` (name, id when present, `response`), calls are
 * `functionCall` parts. Gemini CLI puts a tool's text in `response.output`, and that string is
 * what is shrunk; a response of another shape is shrunk as its JSON and written back as
 * `{ "output": text }`. Every other part (text, inline data, thought signatures) is untouched.
 *
 * @example
 * const view = geminiAdapter.view(JSON.parse(body));
 * view?.results.map((r) => r.tool); // ['run_shell_command']
 */
export const geminiAdapter: RequestAdapter<'gemini'> = {
  api: 'gemini',
  view(body): RequestView<'gemini'> | null {
    if (!isRecord(body) || !Array.isArray(body.contents)) return null;
    const contents = body.contents as unknown[];
    const calls: CallTable = new Map();
    const callSlots = new CallSlots();
    const words = new LatestWords();
    const results: ToolResult[] = [];
    const slots: Slot[] = [];
    contents.forEach((content, position) => {
      if (!isRecord(content) || !Array.isArray(content.parts)) return;
      for (const part of content.parts) {
        if (!isRecord(part)) continue;
        if (typeof part.text === 'string') words.hear(content.role, [part]);
        const call = part.functionCall;
        if (isRecord(call) && typeof call.name === 'string') {
          const id = typeof call.id === 'string' ? call.id : call.name;
          calls.set(id, { name: call.name, input: call.args, said: words.now() });
          callSlots.add(call, 'args', { id, tool: call.name, position });
        }
        const fr = part.functionResponse;
        if (!isRecord(fr) || typeof fr.name !== 'string' || !isRecord(fr.response)) continue;
        const id = typeof fr.id === 'string' ? fr.id : fr.name;
        if (!calls.has(id)) calls.set(id, { name: fr.name, input: undefined });
        const error = typeof fr.response.error === 'string';
        results.push(resultOf(id, calls, functionResponseText(fr.response), position, error));
        slots.push(
          typeof fr.response.output === 'string'
            ? { holder: fr.response, field: 'output' }
            : { holder: fr, field: 'response' },
        );
      }
    });
    const firstUser = contents.find((c) => isRecord(c) && c.role === 'user');
    return {
      api: 'gemini',
      results,
      rawValues: slots.flatMap((slot, index) =>
        slot.field === 'response' ? [{ index, holder: slot.holder, field: 'response' }] : [],
      ),
      messageCount: contents.length,
      clientSession: undefined,
      sessionSeed: seedOf(
        'gemini',
        body.systemInstruction ?? body.system_instruction,
        isRecord(firstUser) ? firstUser.parts : null,
      ),
      continuesServerState: false,
      calls: callSlots.calls,
      applyCalls: callSlots.apply,
      readCallsFrom: (raw, parsed) => callSlots.readFrom(raw, parsed),
      apply: (changed: ReadonlyMap<number, Content>): JsonEdit[] => {
        const edits: JsonEdit[] = [];
        for (const [i, content] of changed) {
          const slot = slots[i];
          if (!slot) continue;
          const text = contentText(content);
          const value = slot.field === 'output' ? text : { output: text };
          slot.holder[slot.field] = value;
          edits.push({ holder: slot.holder, field: slot.field, value });
        }
        return edits;
      },
    };
  },
};
