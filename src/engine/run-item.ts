import { isOwnOutput } from '../collapse/index.js';
import { type Store, stashOriginal } from '../store/index.js';
import { type Content, contentBytes, originalOf, type ToolResult } from '../text/index.js';
import type { FrozenDecisions } from './frozen.js';
import type { ToolOverride } from './tool-overrides.js';
import type { StageItem, StageName } from './types.js';

/** What happened to one result in one run. */
export interface ResultOutcome {
  id: string;
  /** `frozen`: replayed from an earlier turn; `changed`: some stage acted this run. */
  status: 'unchanged' | 'changed' | 'frozen';
  /** The stages that acted, in order. */
  actedBy: StageName[];
  /** Recall id of the stashed original, when a stage stashed it. */
  stashId?: string;
  /** Each stage's decision: `acted`, a decline reason, or `reverted:<cause>`. */
  trail: { stage: StageName; outcome: string }[];
  /** Facts the last acting stage reported (collapse: its window). */
  detail?: Record<string, string | number>;
  /** Tokens of the result as it came in and as it goes out (the statistics tokenizer). */
  tokensBefore: number;
  tokensAfter: number;
}

/** A result as the runner carries it through the stages. */
export interface RunItem extends StageItem {
  /** Replayed from a frozen decision: only stages that act on the prefix see it. */
  readonly frozen: boolean;
  readonly override: ToolOverride | undefined;
  readonly outcome: ResultOutcome;
  /** Changed by a stage in this run (so its decision is frozen anew). */
  changed: boolean;
  /**
   * True when the result came in carrying a spillway marker whose id resolves in the store:
   * text that merely looks like a marker is content like any other.
   */
  cameMarked(): Promise<boolean>;
  /** Replaces the content, with its size when already known. */
  setContent(content: Content, bytes?: number): void;
}

/**
 * Prepares one result for a run: its original (hashed at most once), its frozen decision if
 * any, its tool override, and a stash that runs once however many stages ask.
 *
 * @example
 * const item = await runItem(result, { store, frozen }, override);
 */
export async function runItem(
  result: ToolResult,
  ctx: { store: Store; frozen?: FrozenDecisions | undefined },
  override: ToolOverride | undefined,
): Promise<RunItem> {
  const original = originalOf(result.content, result.originalBytes);
  const frozen = await ctx.frozen?.get(result.id, original.hash());
  let stashed: Promise<string> | undefined;
  let cameMarked: Promise<boolean> | undefined;
  let bytes: number | undefined;
  const item: RunItem = {
    result,
    content: frozen?.content ?? result.content,
    original: result.content,
    lossyActed: false,
    frozen: frozen !== undefined,
    override,
    changed: false,
    outcome: {
      id: result.id,
      status: frozen ? 'frozen' : 'unchanged',
      actedBy: [],
      trail: [],
      ...(frozen?.stashId ? { stashId: frozen.stashId } : {}),
      tokensBefore: 0,
      tokensAfter: 0,
    },
    ...(override?.maxTokens !== undefined ? { toolBudget: override.maxTokens } : {}),
    originalHash: () => original.hash(),
    // A text's stored bytes are its UTF-8 (unless given as read: the CLI's may not be UTF-8);
    // blocks are measured as their JSON.
    originalBytes: () =>
      typeof result.content === 'string' && !result.originalBytes
        ? original.body().length
        : contentBytes(result.content),
    originalId: () => original.id(),
    cameMarked: () => {
      cameMarked ??= isOwnOutput(ctx.store, result.content, () => original.hash());
      return cameMarked;
    },
    stashOriginal: () => {
      stashed ??= stashOriginal(ctx.store, original);
      // A failed stash may be retried by a later stage.
      stashed.catch(() => {
        stashed = undefined;
      });
      return stashed;
    },
    bytes: () => {
      // Content no stage changed has the original's size, known from hashing it.
      bytes ??= item.content === result.content ? item.originalBytes() : contentBytes(item.content);
      return bytes;
    },
    setContent: (content, size) => {
      item.content = content;
      bytes = size;
    },
  };
  return item;
}
