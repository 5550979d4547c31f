/** A text block of a tool result. */
export interface TextBlock {
  type: 'text';
  text: string;
  [key: string]: unknown;
}

/** Any other typed block (image, document, ...): carried through untouched. */
export interface OtherBlock {
  type: string;
  [key: string]: unknown;
}

export type ContentBlock = TextBlock | OtherBlock;

/** What a tool returned: a string, or a list of content blocks. */
export type Content = string | readonly ContentBlock[];

/**
 * True for a text block.
 *
 * @example
 * isTextBlock({ type: 'text', text: 'hi' }); // true
 */
export function isTextBlock(block: ContentBlock): block is TextBlock {
  return block.type === 'text' && typeof (block as TextBlock).text === 'string';
}

/**
 * The text of content made only of text (a string, or text blocks joined), or null when it
 * holds a non-text block.
 *
 * @example
 * textOf([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]); // 'ab'
 * textOf([{ type: 'image', source: {} }]); // null
 */
export function textOf(content: Content): string | null {
  if (typeof content === 'string') return content;
  let out = '';
  for (const block of content) {
    if (!isTextBlock(block)) return null;
    out += block.text;
  }
  return out;
}

/**
 * Content as one string: its text when it is all text, else the JSON of its blocks. What a
 * stash holds and what token counts and byte comparisons measure.
 *
 * @example
 * contentText([{ type: 'text', text: 'a' }]); // 'a'
 */
export function contentText(content: Content): string {
  return textOf(content) ?? JSON.stringify(content);
}

/**
 * Content with the same shape as `like`, holding `text`: a string stays a string; one text
 * block keeps every field but its text (a `cache_control` breakpoint stays where the client put
 * it); several blocks become one text block.
 *
 * @example
 * withText([{ type: 'text', text: 'long', cache_control: { type: 'ephemeral' } }], 'short');
 * // [{ type: 'text', text: 'short', cache_control: { type: 'ephemeral' } }]
 */
export function withText(like: Content, text: string): Content {
  if (typeof like === 'string') return text;
  const only = like.length === 1 ? like[0] : undefined;
  return [only && isTextBlock(only) ? { ...only, text } : { type: 'text', text }];
}

/**
 * The bytes content takes on the wire, for size comparisons: UTF-8 of a string, or of the JSON
 * of its blocks.
 *
 * @example
 * contentBytes('héllo'); // 6
 */
export function contentBytes(content: Content): number {
  return Buffer.byteLength(typeof content === 'string' ? content : JSON.stringify(content), 'utf8');
}
