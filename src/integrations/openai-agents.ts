/**
 * spillway inside the OpenAI Agents SDK for JS (`@openai/agents`): a model-input filter that
 * collapses oversized tool results before each model call, and the `spillway_expand` tool. This
 * module loads no proxy, no HTTP server and no CLI.
 */
import { type CallModelInputFilter, type FunctionTool, tool } from '@openai/agents';
import type { Store } from '../store/index.js';
import { EXPAND, expandAnswer, expandJsonSchema } from './expand-tool.js';
import { type ResultCollapser, resultCollapser } from './result-collapser.js';

type Item = Parameters<CallModelInputFilter>[0]['modelData']['input'][number];

/** What the filter takes. */
export interface SpillwayInputFilterOptions {
  /** The most tokens one tool result may take in the model's input (default 2,000). */
  tokens?: number;
  /** Where originals are stashed for recall (default: one MemoryStore per filter). */
  store?: Store;
}

/**
 * A `callModelInputFilter` for `run(agent, input, { callModelInputFilter })`: every function
 * call result over `tokens` is collapsed with the engine's collapse (its ends and the lines
 * that matter, the whole stashed, a marker naming its recall id), the same way at every turn.
 *
 * @example
 * const filter = spillwayInputFilter({ tokens: 2000 });
 * const agent = new Agent({ name: 'builder', tools: [build, spillwayExpandTool(filter.store)] });
 * await run(agent, 'Build it', { callModelInputFilter: filter, stream: true });
 */
export function spillwayInputFilter(
  options: SpillwayInputFilterOptions = {},
): CallModelInputFilter & { store: Store } {
  const collapser = resultCollapser(options);
  const filter: CallModelInputFilter = async ({ modelData }) => ({
    ...modelData,
    input: await Promise.all(modelData.input.map((item) => collapseItem(item, collapser))),
  });
  return Object.assign(filter, { store: collapser.store });
}

async function collapseItem(item: Item, collapser: ResultCollapser): Promise<Item> {
  if (item.type !== 'function_call_result') return item;
  const output = item.output;
  if (typeof output === 'string') return { ...item, output: await collapser.text(output) };
  if (Array.isArray(output))
    return {
      ...item,
      output: await Promise.all(
        output.map(async (part) =>
          part.type === 'input_text' ? { ...part, text: await collapser.text(part.text) } : part,
        ),
      ),
    };
  if (output.type === 'text')
    return { ...item, output: { ...output, text: await collapser.text(output.text) } };
  return item;
}

/**
 * The `spillway_expand` tool for an Agents SDK agent: the model recalls what a marker left out,
 * by grep, by a line range or by pages. Give it the filter's store.
 *
 * @example
 * const agent = new Agent({ name: 'builder', tools: [build, spillwayExpandTool(filter.store)] });
 */
export function spillwayExpandTool(store: Store): FunctionTool {
  return tool({
    ...EXPAND,
    // Optional arguments: not a strict schema (strict mode requires every property).
    parameters: expandJsonSchema() as unknown as {
      type: 'object';
      properties: Record<string, never>;
      required: string[];
      additionalProperties: true;
    },
    strict: false,
    execute: (input: unknown) => expandAnswer(store, input),
  }) as unknown as FunctionTool;
}
