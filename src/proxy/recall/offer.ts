import { type ApiName, isExpandTool, type Json } from '../../providers/index.js';
import { markerIds } from '../../text/index.js';
import type { RecallOffers } from '../recall-offers.js';
import { appendToArray } from './body-bytes.js';
import { DIALECTS } from './dialects.js';

/** A request the proxy offers the recall tool in, and answers its calls for. */
export interface RecallPlan {
  /** The body with the tool appended to its `tools`. */
  body: Buffer;
  parsed: Json;
  streaming: boolean;
  /** The ids the conversation's markers name. */
  allowed: Set<string>;
}

const MARKER_START = Buffer.from('<<sw:');

/**
 * Whether this request gets the recall tool, and its body with it: a conversation whose body
 * shows a spillway marker, or that was offered it before (the decision is kept, so its tools
 * never change back), and whose client offers no `spillway_expand` of its own (setup's MCP
 * server, under any prefix). The tool goes at the end of `tools`, the same bytes every time.
 *
 * @example
 * const plan = planRecall(offers, 'anthropic', req.url, out.session, out.body);
 */
export function planRecall(
  offers: RecallOffers,
  api: ApiName,
  url: string,
  session: string | undefined,
  body: Buffer,
): RecallPlan | undefined {
  if (!session) return undefined;
  const marked = body.includes(MARKER_START);
  if (!marked && !offers.has(session)) return undefined;
  const text = body.toString('utf8');
  const allowed = new Set(marked ? markerIds(text) : []);
  if (allowed.size === 0 && !offers.has(session)) return undefined;
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
  const dialect = DIALECTS[api];
  const streaming = dialect.streams(url, parsed);
  if (streaming === undefined || dialect.toolNames(parsed).some(isExpandTool)) return undefined;
  offers.remember(session);
  const tools = Array.isArray(parsed.tools) ? parsed.tools : [];
  return {
    body: appendToArray(body, parsed, 'tools', [dialect.toolJson]),
    parsed: { ...parsed, tools: [...tools, JSON.parse(dialect.toolJson)] },
    streaming,
    allowed,
  };
}
