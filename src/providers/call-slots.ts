import { isUtf8 } from 'node:buffer';
import { SpillwayError } from '../errors.js';
import { isRecord, type JsonEdit, type ToolCallInput, valueBytes } from '../text/index.js';

/** Where one call's arguments live in the parsed body. */
interface Slot {
  holder: Record<string, unknown>;
  field: string;
  /** An object (Anthropic `input`, Gemini `args`), not a string. */
  object: boolean;
}

/**
 * A request's tool calls, as its adapter finds them, and where each one's arguments live: an
 * object (Anthropic `input`, Gemini `args`) or a string (OpenAI `arguments`, a custom tool's
 * `input`). An object's text is the client's own bytes of it once {@link CallSlots.readFrom}
 * has the body (JSON.stringify's view otherwise), and new text for it is spliced in as written:
 * clearing a large string never rewrites a number, a key or a space around it.
 *
 * @example
 * const calls = new CallSlots();
 * calls.add(block, 'input', { id: 'toolu_1', tool: 'Write', position: 3 });
 * calls.readFrom(rawBody, JSON.parse(rawBody.toString()));
 * calls.apply(new Map([[0, '{"file_path":"a.ts","content":"[tool input cleared: ...]"}']]));
 */
export class CallSlots {
  readonly calls: ToolCallInput[] = [];
  readonly #slots: Slot[] = [];
  #body: { raw: Buffer; parsed: unknown } | undefined;
  #clientTexts: (string | undefined)[] | undefined;

  /** Adds the call whose arguments are `holder[field]`, unless they are neither text nor an object. */
  add(
    holder: Record<string, unknown>,
    field: string,
    call: { id: string; tool: string; position: number; freeform?: boolean },
  ): void {
    const value = holder[field];
    const object = isRecord(value);
    if (!object && typeof value !== 'string') return;
    const index = this.#slots.length;
    // Read only when asked for: most turns of most presets never read a call's arguments.
    let text = object ? undefined : (value as string);
    const clientText = () => this.#clientText(index);
    this.calls.push({
      ...call,
      freeform: call.freeform === true,
      get text() {
        text ??= clientText() ?? JSON.stringify(value);
        return text;
      },
    });
    this.#slots.push({ holder, field, object });
  }

  /** The body's bytes (`parsed` is `JSON.parse(raw)`): object arguments are read from them. */
  readFrom(raw: Buffer, parsed: unknown): void {
    this.#body = { raw, parsed };
    this.#clientTexts = undefined;
  }

  /** The client's text of an object's arguments: one walk of the body for all of them, when first asked. */
  #clientText(index: number): string | undefined {
    const body = this.#body;
    if (!body || !this.#slots[index]?.object) return undefined;
    if (!this.#clientTexts) {
      const bytes = valueBytes(
        body.raw,
        body.parsed,
        this.#slots.map(({ holder, field }) => ({ holder, field })),
      );
      // Bytes that are not UTF-8 could not be spliced back as text: JSON.stringify's view then.
      this.#clientTexts = bytes.map((b) => (b && isUtf8(b) ? b.toString('utf8') : undefined));
    }
    return this.#clientTexts[index];
  }

  /** The `applyCalls` of a request view. */
  readonly apply = (inputs: ReadonlyMap<number, string>): JsonEdit[] => {
    const edits: JsonEdit[] = [];
    for (const [i, text] of inputs) {
      const slot = this.#slots[i];
      if (!slot) continue;
      // Parsed first: text that is not JSON never reaches the body.
      const value: unknown = slot.object ? JSON.parse(text) : text;
      if (slot.object && !isRecord(value))
        throw new SpillwayError(
          'SPILLWAY_BAD_INPUT',
          `new arguments for a ${slot.field} object are not an object`,
        );
      slot.holder[slot.field] = value;
      edits.push({ holder: slot.holder, field: slot.field, value, ...(slot.object ? { json: text } : {}) });
    }
    return edits;
  };
}
