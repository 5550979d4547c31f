import { z } from 'zod';
import { parseConfig, wholeNumber } from '../../config-schema.js';
import { SOURCE_MAX_TOKENS } from '../../engine/index.js';
import type { Store } from '../../store/index.js';
import { EXPAND_TOOL, EXPAND_TOOL_DEFINITION, shortenToolResult } from '../../tools/index.js';
import { idInHead } from '../line-reader.js';
import { answerExpandCall, rpcError } from '../server/index.js';

/**
 * How the gateway shortens results (the schema of its `--config FILE`): a default budget, and
 * per tool name its budget or 0 to pass its results through whole.
 */
export const GatewayBudgetsSchema = z.strictObject({
  /** Tokens a tool result's text may take (default SOURCE_MAX_TOKENS, under every major client's MCP limit). */
  maxTokens: wholeNumber(1).optional(),
  tools: z
    .record(z.string(), wholeNumber(0), { error: 'must map tool names to whole numbers of tokens' })
    .optional(),
});
export type GatewayBudgets = z.infer<typeof GatewayBudgetsSchema>;

/**
 * Reads a gateway config (its budgets); errors name the key that is wrong and what it may be.
 *
 * @example
 * parseGatewayConfig({ maxTokens: 4000, tools: { take_snapshot: 8000, get_time: 0 } }, 'gateway.json');
 */
export function parseGatewayConfig(value: unknown, where: string): GatewayBudgets {
  return parseConfig(GatewayBudgetsSchema, value, where);
}

export interface GatewayOptions {
  store: Store;
  budgets?: GatewayBudgets;
  /**
   * Writes one message to the client, or to the upstream server (a line of JSON each). A
   * promise from `toClient` (a slow client's full pipe) holds the upstream's next message.
   */
  toClient: (line: string) => unknown;
  toUpstream: (line: string) => void;
  /** One line per event worth a log (never a result's text). */
  log?: (line: Record<string, unknown>) => void;
  /**
   * False when the client has spillway's own MCP server (spillway setup registers it): the
   * gateway then adds no spillway_expand of its own, and the model recalls through that one.
   */
  expandTool?: boolean;
}

type Json = Record<string, unknown>;
type Pending = { kind: 'list' } | { kind: 'call'; tool: string; args: unknown };

// The key an upstream tool sets for the most characters a client should take of its result.
const MAX_RESULT_CHARS = 'anthropic/maxResultSizeChars';
// Characters a token takes at the least, for a budget given in characters.
const CHARS_PER_TOKEN = 5;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An MCP server that fronts another: every message passes through unchanged (the very line,
 * byte for byte), but for the answers to `tools/call`, whose text blocks over the budget are
 * collapsed (the original stashed, recallable by id), and to the last page of `tools/list`,
 * which gains `spillway_expand` unless the upstream has one. `isError` results and every other
 * block (images, resources, structured content) pass through as they are. A result whose
 * original cannot be stashed goes through whole, with a log line.
 *
 * @example
 * const gateway = new McpGateway({ store, toClient: (l) => process.stdout.write(`${l}\n`), toUpstream: (l) => child.stdin.write(`${l}\n`) });
 * for await (const line of clientLines) await gateway.fromClient(line);
 */
export class McpGateway {
  readonly #o: GatewayOptions;
  readonly #pending = new Map<string, Pending>();
  // Every request passed upstream and not answered yet: if the server ends, each gets an error.
  readonly #open = new Map<string, unknown>();
  readonly #maxChars = new Map<string, number>();
  #upstreamHasExpand = false;
  // Answers to the client leave in the order the upstream sent them.
  #queue: Promise<void> = Promise.resolve();

  constructor(options: GatewayOptions) {
    this.#o = options;
  }

  /** A line from the client: answered here (spillway_expand), or passed to the upstream. */
  async fromClient(line: string): Promise<void> {
    const message = parse(line);
    if (isObject(message) && message.id !== undefined && typeof message.method === 'string') {
      const params = isObject(message.params) ? message.params : {};
      if (
        message.method === 'tools/call' &&
        params.name === EXPAND_TOOL &&
        !this.#upstreamHasExpand &&
        this.#o.expandTool !== false
      ) {
        // Answered when ready (a grep can take seconds): the client's next messages, a
        // cancellation say, are not held behind it.
        void answerExpandCall(this.#o.store, message.id, params.arguments).then((answer) =>
          this.#enqueue(async () => {
            await this.#o.toClient(JSON.stringify(answer));
          }),
        );
        return;
      }
      this.#open.set(keyOf(message.id), message.id);
      if (message.method === 'tools/list') this.#pending.set(keyOf(message.id), { kind: 'list' });
      if (message.method === 'tools/call' && typeof params.name === 'string')
        this.#pending.set(keyOf(message.id), { kind: 'call', tool: params.name, args: params.arguments });
    }
    this.#o.toUpstream(line);
  }

  /** A line from the upstream: passed to the client, shortened where it is a result over budget. */
  fromUpstream(line: string): Promise<void> {
    return this.#enqueue(async () => {
      let out = line;
      try {
        out = await this.#rewrite(line);
      } catch (err) {
        // Whatever went wrong here, the client gets the server's message as it was.
        this.#o.log?.({ event: 'rewrite_failed', error: (err as Error).message });
      }
      await this.#o.toClient(out);
    });
  }

  /**
   * A message over the gateway's limit (`boundedLines` dropped it): the request or answer it
   * belongs to gets a JSON-RPC error naming the limit, and the connection goes on.
   *
   * @example
   * gateway.tooLong('upstream', { oversize: 600_000_000, head }, MAX_MESSAGE_BYTES);
   */
  tooLong(
    from: 'client' | 'upstream',
    dropped: { oversize: number; head: string },
    limit: number,
  ): Promise<void> {
    const id = idInHead(dropped.head);
    this.#o.log?.({ event: 'message_too_long', from, bytes: dropped.oversize, limit });
    if (id === undefined) return Promise.resolve();
    this.#pending.delete(keyOf(id));
    this.#open.delete(keyOf(id));
    const what =
      from === 'client'
        ? `your message is ${dropped.oversize} bytes`
        : `the MCP server's answer is ${dropped.oversize} bytes`;
    return this.#answerError(
      id,
      `${what}, over spillway gateway's limit of ${limit} bytes for one message; it was dropped (raise the limit with --max-message-bytes)`,
    );
  }

  /**
   * The upstream server ended (exited, or its connection closed): every request it had not
   * answered gets a JSON-RPC error saying so, instead of waiting for ever.
   *
   * @example
   * child.on('exit', (code) => gateway.upstreamEnded(`exited with code ${code}`));
   */
  async upstreamEnded(why: string): Promise<void> {
    const ids = [...this.#open.values()];
    this.#open.clear();
    this.#pending.clear();
    for (const id of ids) await this.#answerError(id, `the MCP server ${why} before it answered`);
  }

  #answerError(id: unknown, message: string): Promise<void> {
    return this.#enqueue(async () => {
      await this.#o.toClient(JSON.stringify(rpcError(id, -32603, message)));
    });
  }

  #enqueue(step: () => Promise<void>): Promise<void> {
    this.#queue = this.#queue.then(step, step);
    return this.#queue;
  }

  async #rewrite(line: string): Promise<string> {
    const message = parse(line);
    if (!isObject(message) || message.id === undefined || message.method !== undefined) return line;
    this.#open.delete(keyOf(message.id));
    const pending = this.#pending.get(keyOf(message.id));
    if (!pending) return line;
    this.#pending.delete(keyOf(message.id));
    if (!isObject(message.result)) return line;
    if (pending.kind === 'list') return this.#withExpandTool(line, message, message.result);
    const shortened = await this.#shorten(pending, message.result, {
      raw: Buffer.from(line, 'utf8'),
      message,
    });
    return shortened ? JSON.stringify({ ...message, result: shortened }) : line;
  }

  #withExpandTool(line: string, message: Json, result: Json): string {
    if (!Array.isArray(result.tools)) return line;
    for (const tool of result.tools) {
      if (!isObject(tool) || typeof tool.name !== 'string') continue;
      if (tool.name === EXPAND_TOOL) this.#upstreamHasExpand = true;
      const chars = isObject(tool._meta) ? tool._meta[MAX_RESULT_CHARS] : undefined;
      if (typeof chars === 'number' && chars > 0) this.#maxChars.set(tool.name, chars);
    }
    // Added once, on the last page, and only when the upstream has no spillway_expand of its own.
    if (this.#upstreamHasExpand || this.#o.expandTool === false || result.nextCursor !== undefined)
      return line;
    return JSON.stringify({
      ...message,
      result: { ...result, tools: [...result.tools, EXPAND_TOOL_DEFINITION] },
    });
  }

  /** The result with its long text blocks collapsed, or undefined when nothing changed. */
  async #shorten(
    call: { tool: string; args: unknown },
    result: Json,
    line: { raw: Buffer; message: Json },
  ): Promise<Json | undefined> {
    const perTool = this.#o.budgets?.tools?.[call.tool];
    if (perTool === 0) return undefined;
    let budget = perTool ?? this.#o.budgets?.maxTokens ?? SOURCE_MAX_TOKENS;
    const maxChars = this.#maxChars.get(call.tool);
    if (maxChars !== undefined) budget = Math.min(budget, Math.floor(maxChars / CHARS_PER_TOKEN));
    return shortenToolResult(result, {
      tool: call.tool,
      args: call.args,
      budget,
      store: this.#o.store,
      line,
      ...(this.#o.log ? { log: this.#o.log } : {}),
    });
  }
}

function parse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

// JSON-RPC ids are strings or numbers: 1 and "1" are different requests.
const keyOf = (id: unknown) => `${typeof id}:${String(id)}`;
