/**
 * spillway inside LangChain.js and LangGraph (`@langchain/core` 1, `langchain` 1,
 * `@langchain/langgraph` 1): a middleware for LangChain v1's `createAgent` and a pre-model hook
 * for LangGraph's `createReactAgent`, each collapsing oversized tool messages in what the model
 * is sent (the agent's state keeps the whole), and the `spillway_expand` tool. This module loads
 * no proxy, no HTTP server, no CLI, and not the `langchain` package itself.
 */
import { type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import type { AgentMiddleware } from 'langchain';
import type { Store } from '../store/index.js';
import { EXPAND, EXPAND_INPUT, expandAnswer } from './expand-tool.js';
import { type ResultCollapser, resultCollapser } from './result-collapser.js';

/** What the hook takes. */
export interface SpillwayHookOptions {
  /** The most tokens one tool message may take in what the model is sent (default 2,000). */
  tokens?: number;
  /** Where originals are stashed for recall (default: one MemoryStore per hook). */
  store?: Store;
}

/**
 * A `preModelHook` for LangGraph's `createReactAgent`: every tool message over `tokens` is
 * collapsed in `llmInputMessages` (what the model is sent; the graph's state keeps the whole),
 * the same way at every step, its original stashed and named by a recall id.
 *
 * @example
 * const hook = spillwayPreModelHook({ tokens: 2000 });
 * const agent = createReactAgent({ llm, tools: [build, spillwayExpandTool(hook.store)], preModelHook: hook });
 */
export function spillwayPreModelHook(options: SpillwayHookOptions = {}) {
  const collapser = resultCollapser(options);
  const hook = async (state: { messages: BaseMessage[] }): Promise<{ llmInputMessages: BaseMessage[] }> => ({
    llmInputMessages: await Promise.all(state.messages.map((m) => collapseMessage(m, collapser))),
  });
  return Object.assign(hook, { store: collapser.store });
}

/** A `createAgent` middleware with the store its originals are stashed in. */
export type SpillwayMiddleware = AgentMiddleware & { store: Store };

/**
 * A middleware for LangChain v1's `createAgent`: before each model call (`wrapModelCall`) every
 * tool message over `tokens` is collapsed in what the model is sent, the same way at every step
 * (so the provider's cached prefix holds), its original stashed and named by a recall id; the
 * agent's state keeps the whole. It brings the `spillway_expand` tool with it, so the model can
 * recall what a marker left out without the agent listing the tool.
 *
 * @example
 * import { createAgent } from 'langchain';
 * const agent = createAgent({ model, tools: [build], middleware: [spillwayMiddleware({ tokens: 2000 })] });
 */
export function spillwayMiddleware(options: SpillwayHookOptions = {}): SpillwayMiddleware {
  const collapser = resultCollapser(options);
  const middleware: SpillwayMiddleware = {
    name: 'SpillwayMiddleware',
    tools: [spillwayExpandTool(collapser.store)],
    wrapModelCall: async (request, handler) =>
      handler({
        ...request,
        messages: await Promise.all(request.messages.map((m) => collapseMessage(m, collapser))),
      }),
    store: collapser.store,
  };
  // What langchain's createMiddleware adds; set here so this module needs no `langchain` at run time.
  return Object.assign(middleware, { [Symbol.for('AgentMiddleware')]: true });
}

async function collapseMessage(message: BaseMessage, collapser: ResultCollapser): Promise<BaseMessage> {
  if (!ToolMessage.isInstance(message)) return message;
  const content = message.content;
  const next =
    typeof content === 'string'
      ? await collapser.text(content)
      : await Promise.all(
          content.map(async (part) =>
            part.type === 'text' && typeof part.text === 'string'
              ? { ...part, text: await collapser.text(part.text) }
              : part,
          ),
        );
  if (next === content) return message;
  return new ToolMessage({
    content: next,
    tool_call_id: message.tool_call_id,
    ...(message.name !== undefined ? { name: message.name } : {}),
    ...(message.id !== undefined ? { id: message.id } : {}),
    ...(message.status !== undefined ? { status: message.status } : {}),
    artifact: message.artifact,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  });
}

/**
 * The `spillway_expand` tool for a LangChain agent: the model recalls what a marker left out,
 * by grep, by a line range or by pages. Give it the hook's store.
 *
 * @example
 * const tools = [build, spillwayExpandTool(hook.store)];
 */
export function spillwayExpandTool(store: Store): StructuredToolInterface {
  return tool((input: unknown) => expandAnswer(store, input), {
    ...EXPAND,
    schema: EXPAND_INPUT,
  }) as unknown as StructuredToolInterface;
}
