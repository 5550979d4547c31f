import type { Prices } from './prices.js';
import type { Dialect, OfferedTool } from './recall-dialect.js';
import type { InputUsage } from './usage.js';
import type { RequestAdapter } from './view.js';

/** A request's headers, as node:http gives them. */
export type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** A model request an API's rewrite path serves: the model its path names, if it does. */
export interface ModelCall {
  /** The model named in the path (Gemini's `/models/{model}:generateContent`). */
  model?: string;
  /** False for a request that asks about a body without sending it (count_tokens): the conversation does not move on. */
  advances: boolean;
}

/**
 * Real samples of the API, the ones every provider's shared cases run on
 * (test-support/provider-cases.ts): a model request with tool results, and an answer's usage.
 * Each folder exports its own as `examples` beside `spec` (not in it: a start that reads the
 * registry for prices loads no samples).
 */
export interface ProviderExamples {
  /** A model request as its clients send it, with at least one tool result. */
  request: { path: string; headers: Headers; body: Record<string, unknown> };
  /** An answer (or the stream event) that reports usage, and what it reports. */
  answer: { body: unknown; usage: InputUsage };
}

/**
 * One model API as spillway meets it: how its requests are recognised, where they go, how their
 * tool results are read and written, and how the API answers (errors, usage, prices). Adding a
 * provider is its folder (a spec) and one line in registry.ts; everything that lists the APIs
 * derives from the registry.
 */
export interface ProviderSpec<A extends string = string, K extends string = string> {
  /** The API's name: the one vocabulary (stats, logs, replay's formats, the session log). */
  readonly api: A;
  /**
   * Its upstream: the key users write (`--<key>-upstream`, upstreams.json; the APIs of one
   * provider share it) and where requests go when no endpoint is configured.
   */
  readonly upstream: {
    readonly key: K;
    readonly url: string;
    /** Where a request that names no API goes (one provider's, the most imitated). */
    readonly fallback?: true;
  };
  /** Its model paths (a POST to one is rewritten), and what each call is. */
  readonly paths: Readonly<Record<string, ModelCall>>;
  /** The model call a POST to `path` (no query) is, for an API whose paths name the model (Gemini's). */
  call?(path: string): ModelCall | undefined;
  /** Whether a request's path or headers name this API's upstream (pass-through requests too). */
  names(path: string, headers: Headers): boolean;
  /** The headers (beside Authorization and cookies) and query parameters that carry its keys. */
  readonly credentials: { readonly headers: readonly string[]; readonly query?: readonly string[] };
  /** Its request bodies' tool results, read and written back. */
  readonly adapter: RequestAdapter<A>;
  /** The top-level array of a body its conversation is in: counted item by item, the prefix cached. */
  readonly conversationKey: string;
  /** The output tokens a request asks room for (its max-output field), as the body gives it. */
  maxOutput(body: Record<string, unknown>): unknown;
  /** An error answer in the shape its SDK reads (`type` a short code, `message` for people). */
  errorBody(type: string, message: string): unknown;
  /** A text every answer event that reports usage holds (streams are searched for it, not parsed). */
  readonly usageMark: string;
  /** The input usage an answer or one of its stream events reports, when it is this API's. */
  usage(answer: Record<string, unknown>): InputUsage | undefined;
  /** Its models' built-in prices, by model name prefix. */
  readonly prices: Readonly<Prices>;
  /**
   * Its side of recall through the proxy, for the tool offered: the tool's form, its calls, its
   * stream. Loaded when asked (only the proxy asks), so the registry stays light for the starts
   * that read it for prices.
   */
  recall(): Promise<(tool: OfferedTool) => Dialect>;
  /** A saved request body as a replay transcript: when a body is one, and what it looks like. */
  readonly saved?: { readonly expects: string; holds(body: Record<string, unknown>): boolean };
}
