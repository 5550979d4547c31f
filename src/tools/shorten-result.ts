import { collapseOutput } from '../collapse/index.js';
import type { Store } from '../store/index.js';
import { shortenStructuredContent } from './structured-content.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What shortening one tools/call result takes. */
export interface ShortenResultOptions {
  tool: string;
  /** The call's arguments: lines naming what they ask about are kept too. */
  args: unknown;
  /** Tokens each text block and the structured content may take. */
  budget: number;
  store: Store;
  /** The JSON-RPC line the result came in, when there is one: the server's own bytes are stashed. */
  line?: { raw: Buffer; message: unknown };
  log?: (event: Record<string, unknown>) => void;
}

/**
 * An MCP tools/call result with its text blocks over the budget collapsed (the originals
 * stashed, named by recall ids) and its structured content cut in its own shape with a note
 * beside it; undefined when nothing changed. `isError` results go as they are; a text whose
 * original cannot be stashed goes whole (logged). The gateway and the in-process client wrapper
 * both shorten results here.
 *
 * @example
 * const shortened = await shortenToolResult(result, { tool: 'build', args: {}, budget: 1800, store });
 * if (shortened) result = shortened;
 */
export async function shortenToolResult(result: Json, o: ShortenResultOptions): Promise<Json | undefined> {
  if (result.isError === true || !Array.isArray(result.content)) return undefined;
  let changed = false;
  const collapseOnce = async (text: string, budget: number): Promise<string> => {
    const out = await collapseOutput(Buffer.from(text, 'utf8'), {
      store: o.store,
      budget,
      measure: o.log !== undefined,
      tool: o.tool,
      input: o.args,
    });
    if (out.stashError !== undefined) {
      // Nothing lost: without a stash the model gets the whole text.
      o.log?.({ event: 'stash_failed', tool: o.tool, error: out.stashError });
      return text;
    }
    if (out.step !== 'acted') return text;
    changed = true;
    o.log?.({
      event: 'collapsed',
      tool: o.tool,
      id: out.id,
      tokensBefore: out.tokensBefore,
      tokensAfter: out.tokensAfter,
    });
    return out.text;
  };
  // The same text in a block and in structured content (a read's, say) is collapsed once.
  const done = new Map<string, Promise<string>>();
  const collapse = (text: string, budget = o.budget): Promise<string> => {
    const key = `${budget}:${text}`;
    const known = done.get(key);
    if (known) return known;
    const out = collapseOnce(text, budget);
    done.set(key, out);
    return out;
  };
  const content: unknown[] = [];
  for (const block of result.content)
    content.push(
      isObject(block) && block.type === 'text' && typeof block.text === 'string'
        ? { ...block, text: await collapse(block.text) }
        : block,
    );
  const structured = await shortenStructuredContent(result, o.line, {
    budget: o.budget,
    store: o.store,
    collapse,
    log: (event) => o.log?.({ ...event, tool: o.tool }),
  });
  if (structured) {
    changed = true;
    content.push({ type: 'text', text: structured.note });
  }
  if (!changed) return undefined;
  return { ...result, content, ...(structured ? { structuredContent: structured.value } : {}) };
}
