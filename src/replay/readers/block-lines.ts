import { asContent, type CallTable, LatestWords, resultOf } from '../../formats/index.js';
import { asRecord, type Content, type ToolResult } from '../../text/index.js';
import type { TranscriptReader } from '../transcript.js';
import { asString, firstJsonLines, nothingFits, parseJsonLines } from './json-lines.js';

const EXPECTS =
  'a block-per-line transcript (JSONL: {"timestamp","role","content":{"type":"tool_use","tool_name","tool_id","input"}}, results {"type":"tool_result","tool_id",...} likewise)';

type Rec = Record<string, unknown>;

/** The block a line carries, when it is a tool call's or a result's (by `tool_id`) or text. */
function blockOf(line: unknown): { role: unknown; block: Rec } | undefined {
  const r = asRecord(line);
  const block = asRecord(r?.content);
  if (!r || !block || typeof r.role !== 'string') return undefined;
  if ((block.type === 'tool_use' || block.type === 'tool_result') && typeof block.tool_id === 'string')
    return { role: r.role, block };
  if (block.type === 'text' && typeof block.text === 'string') return { role: r.role, block };
  return undefined;
}

/** A result's content: its output, content or result; a string or blocks as they are, anything else as JSON. */
function outputOf(block: Rec): Content {
  const value = block.output ?? block.content ?? block.result ?? '';
  return asContent(value) ?? JSON.stringify(value);
}

/**
 * A transcript written one content block a line, each under `content` beside its `role` and
 * `timestamp`: tool calls (`tool_use` with tool_name, tool_id, input) and their results
 * (`tool_result` with the same tool_id), text between them. The results that come back between
 * two calls of the model are one turn.
 *
 * @example
 * readTranscript('{"role":"assistant","content":{"type":"tool_use","tool_name":"Bash","tool_id":"t1","input":{}}}\n', 'x.jsonl');
 */
export const blockLinesReader: TranscriptReader = {
  format: 'block-lines',
  expects: EXPECTS,
  detect(text) {
    return firstJsonLines(text, 10).some((line) => {
      const type = blockOf(line)?.block.type;
      return type === 'tool_use' || type === 'tool_result';
    });
  },
  read(text, name) {
    const calls: CallTable = new Map();
    const words = new LatestWords();
    const turns: ToolResult[][] = [];
    let turn: ToolResult[] = [];
    let blocks = 0;
    for (const value of parseJsonLines(text, name)) {
      const found = blockOf(value);
      if (!found) continue;
      const { role, block } = found;
      if (block.type === 'text') {
        words.hear(role, block.text);
        continue;
      }
      blocks++;
      const id = block.tool_id as string;
      if (block.type === 'tool_use') {
        if (turn.length > 0) turns.push(turn);
        turn = [];
        calls.set(id, {
          name: asString(block.tool_name) ?? '',
          input: block.input ?? block.parameters,
          said: words.now(),
        });
        continue;
      }
      turn.push(
        resultOf(
          id,
          calls,
          outputOf(block),
          turns.length,
          block.is_error === true || block.status === 'error',
        ),
      );
    }
    if (turn.length > 0) turns.push(turn);
    if (blocks === 0) throw nothingFits(name, EXPECTS, text);
    return [{ id: name, turns }];
  },
};
