/**
 * spillway inside the Vercel AI SDK (`ai` 6): a language-model middleware that collapses
 * oversized tool results in the prompt before each call, and the `spillway_expand` tool the
 * model recalls them with. Types only are imported from the SDK: this module loads no proxy,
 * no HTTP server and no CLI.
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Middleware,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
} from '@ai-sdk/provider';
import type { Collapsed } from '../collapse/index.js';
import type { Store } from '../store/index.js';
import { EXPAND, EXPAND_INPUT, expandAnswer } from './expand-tool.js';
import { resultCollapser } from './result-collapser.js';

/** What the middleware takes. */
export interface SpillwayMiddlewareOptions {
  /** The most tokens one tool result may take in the prompt (default 2,000). */
  tokens?: number;
  /** Where originals are stashed for recall (default: one MemoryStore per middleware). */
  store?: Store;
  /** The tokenizer that counts the budget (default o200k). */
  tokenizer?: string;
}

type Output = LanguageModelV3ToolResultOutput;

/**
 * The middleware and its store: tool results over `tokens` are collapsed with the engine's
 * collapse (their ends and the lines that matter, the whole stashed and named by a recall id).
 * A result is collapsed the same way at every step, so the prompt's prefix stays byte for byte
 * what the provider cached.
 *
 * @example
 * import { generateText, wrapLanguageModel, stepCountIs } from 'ai';
 * const sw = spillway({ tokens: 2000 });
 * const model = wrapLanguageModel({ model: openai('gpt-5'), middleware: sw });
 * await generateText({ model, tools: { build, spillway_expand: spillwayExpand(sw.store) }, stopWhen: stepCountIs(8), prompt });
 */
export function spillway(
  options: SpillwayMiddlewareOptions = {},
): LanguageModelV3Middleware & { store: Store } {
  const { store, collapsed } = resultCollapser(options);
  return {
    specificationVersion: 'v3',
    store,
    transformParams: async ({ params }): Promise<LanguageModelV3CallOptions> => ({
      ...params,
      prompt: await collapsePrompt(params.prompt, collapsed),
    }),
  };
}

/** The prompt with every tool result's text collapsed; parts and messages otherwise as they were. */
async function collapsePrompt(
  prompt: LanguageModelV3Prompt,
  collapsed: (text: string) => Promise<Collapsed>,
): Promise<LanguageModelV3Prompt> {
  return Promise.all(
    prompt.map(async (message) => {
      if (message.role !== 'tool' && message.role !== 'assistant') return message;
      const content = await Promise.all(
        message.content.map(async (part) =>
          part.type === 'tool-result'
            ? { ...part, output: await collapseOutput(part.output, collapsed) }
            : part,
        ),
      );
      return { ...message, content } as typeof message;
    }),
  );
}

async function collapseOutput(
  output: Output,
  collapsed: (text: string) => Promise<Collapsed>,
): Promise<Output> {
  switch (output.type) {
    case 'text':
    case 'error-text': {
      const out = await collapsed(output.value);
      return out.collapsed ? { ...output, value: out.text } : output;
    }
    case 'json':
    case 'error-json': {
      // Collapsed JSON keeps its structure but carries a header line: it goes as text.
      const out = await collapsed(JSON.stringify(output.value));
      if (!out.collapsed) return output;
      return { type: output.type === 'json' ? 'text' : 'error-text', value: out.text };
    }
    case 'content': {
      const value = await Promise.all(
        output.value.map(async (item) => {
          if (item.type !== 'text') return item;
          const out = await collapsed(item.text);
          return out.collapsed ? { ...item, text: out.text } : item;
        }),
      );
      return { ...output, value };
    }
    default:
      return output;
  }
}

/**
 * The `spillway_expand` tool for an AI SDK agent: the model recalls what a marker left out, by
 * grep, by a line range or by pages. Give it the middleware's store.
 *
 * @example
 * const sw = spillway();
 * const tools = { build, spillway_expand: spillwayExpand(sw.store) };
 */
export function spillwayExpand(store: Store) {
  return {
    description: EXPAND.description,
    inputSchema: EXPAND_INPUT,
    execute: (input: unknown): Promise<string> => expandAnswer(store, input),
  };
}
