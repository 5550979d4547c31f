import { SpillwayError } from '../../errors.js';
import { asRecord, type ToolResult } from '../../text/index.js';
import type { TranscriptReader } from '../transcript.js';
import { asString, parseDocument } from './json-lines.js';

function parseObject(text: string): Record<string, unknown> | undefined {
  return asRecord(parseDocument(text));
}

/**
 * SWE-agent `.traj`: a JSON object with `trajectory[]` steps (`action`, `observation`). When
 * `history` holds OpenAI-style `tool` messages (function-calling agents), those are used, with
 * tool names from the assistant's `tool_calls`; otherwise each step's observation is a result.
 */
export const sweAgentReader: TranscriptReader = {
  format: 'swe-agent',
  expects: 'a SWE-agent .traj JSON object with a "trajectory" list of {action, observation} steps',
  detect(text) {
    const obj = parseObject(text);
    return obj !== undefined && Array.isArray(obj.trajectory);
  },
  read(text, name) {
    const obj = parseObject(text);
    if (!obj || !Array.isArray(obj.trajectory)) {
      throw new SpillwayError(
        'SPILLWAY_BAD_INPUT',
        `${name}: not a SWE-agent trajectory (expected a JSON object with a "trajectory" list)`,
      );
    }
    const model = asString(asRecord(asRecord(asRecord(obj.replay_config)?.agent)?.model)?.name);
    const history = Array.isArray(obj.history) ? obj.history.map(asRecord) : [];
    const turns: ToolResult[][] = [];
    if (history.some((m) => m?.role === 'tool')) {
      const names = new Map<string, string>();
      for (const m of history) {
        if (!m) continue;
        if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
          for (const call of m.tool_calls) {
            const c = asRecord(call);
            const id = asString(c?.id);
            if (id) names.set(id, asString(asRecord(c?.function)?.name) ?? '');
          }
        }
        if (m.role !== 'tool') continue;
        const id =
          (Array.isArray(m.tool_call_ids) ? asString(m.tool_call_ids[0]) : asString(m.tool_call_id)) ??
          `tool-${turns.length}`;
        const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '');
        turns.push([{ id, tool: names.get(id) ?? '', content, position: turns.length }]);
      }
    } else {
      obj.trajectory.forEach((step, i) => {
        const s = asRecord(step);
        if (!s) throw new SpillwayError('SPILLWAY_BAD_INPUT', `${name}: trajectory[${i}] is not an object`);
        if (typeof s.observation !== 'string') return;
        const action = asString(s.action) ?? '';
        turns.push([
          {
            id: `step-${i}`,
            tool: action.trim().split(/\s+/)[0] ?? '',
            content: s.observation,
            position: turns.length,
          },
        ]);
      });
    }
    return [{ id: name, ...(model ? { model } : {}), turns }];
  },
};
