import { type ApiName, PROVIDERS } from '../../providers/index.js';
import { arrayItemSpans, contentText, type ToolResult } from '../../text/index.js';

// JSON of prose and code runs about 4 bytes a token; an estimate is all a rewrite's cost needs.
const BYTES_PER_TOKEN = 4;

// A result's text stands in the body as a JSON string: every newline, quote and backslash takes
// two bytes there (a control character six). Taking off only its decoded bytes would count the
// escapes as other tokens (about 750 for a 3,000-line log), enough to turn a paying rewrite down.
const encodedBytes = (text: string): number => Buffer.byteLength(JSON.stringify(text)) - 2;

/**
 * The `otherTokensFrom` of a request body: its messages' tokens other than tool results from a
 * message to its end (assistant text, calls' arguments, user text), estimated from the bytes of
 * the messages less those of their results. Measured once, when first asked (most requests
 * never ask); 0 everywhere when the body's messages cannot be found.
 *
 * @example
 * const from = otherTokensFrom('anthropic', raw, view.results);
 * from(12); // ~ tokens of messages 12.. that are not tool results
 */
export function otherTokensFrom(
  api: ApiName,
  raw: Buffer,
  results: readonly ToolResult[],
): (position: number) => number {
  let suffix: number[] | undefined;
  const measure = (): number[] => {
    const spans = arrayItemSpans(raw, PROVIDERS.of(api).conversationKey) ?? [];
    const bytes = spans.map((s) => s.end - s.start);
    for (const r of results)
      if (r.position < bytes.length)
        bytes[r.position] = (bytes[r.position] as number) - encodedBytes(contentText(r.content));
    const sums = new Array<number>(bytes.length + 1).fill(0);
    for (let i = bytes.length - 1; i >= 0; i--)
      sums[i] = (sums[i + 1] as number) + Math.max(0, bytes[i] as number);
    return sums;
  };
  return (position) => {
    suffix ??= measure();
    const at = Math.min(Math.max(0, position), suffix.length - 1);
    return Math.round((suffix[at] ?? 0) / BYTES_PER_TOKEN);
  };
}
