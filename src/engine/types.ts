import type { Store } from '../store/index.js';
import type { Content, ToolResult } from '../text/index.js';
import type { Tokenizer } from '../text/tokenizers/index.js';
import type { FrozenDecisions } from './frozen.js';
import type { RequestEconomics } from './rewrite-pays.js';

export const PRESET_NAMES = ['off', 'safe', 'balanced', 'aggressive'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

export const STAGE_NAMES = [
  'textclean',
  'format',
  'dedup',
  'rerun',
  'linecap',
  'collapse',
  'supersede',
  'mask',
] as const;
export type StageName = (typeof STAGE_NAMES)[number];

/** Why a stage left a result alone: a closed set of stable snake_case names. */
export const DECLINE_REASONS = [
  // collapse, as the seed names them
  'non_text_blocks',
  'already_marked',
  'kept_verbatim_after_expand',
  'cached_prefix',
  'below_max_tokens',
  'too_few_lines_and_chars',
  'marker_no_win',
  'stash_failed',
  // the other stages and the runner
  'exempt_tool',
  'nothing_to_clean',
  'not_json',
  'already_compact',
  'no_earlier_duplicate',
  'below_min_size',
  'no_long_lines',
  'only_protected_lines',
  'json_left_to_collapse',
  'recent',
  'batch_not_full',
  'too_small',
  'does_not_pay',
  'not_superseded',
  'not_a_rerun',
  'mostly_changed',
  'superseded_instead',
  'source_read',
] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/** Why the runner undid what a stage did. */
export const REVERT_CAUSES = ['threw', 'grew', 'lossy_without_stash'] as const;
export type RevertCause = (typeof REVERT_CAUSES)[number];

/** What a stage did with one result. */
export type Decision =
  | {
      action: 'acted';
      content: Content;
      /** Recall id of the stashed original, for stages that drop bytes. */
      stashId?: string;
      /** Stage-specific facts for reports (collapse: window, ids). */
      detail?: Record<string, string | number>;
      /**
       * UTF-8 bytes of `content` (of its JSON for blocks), when the stage knows them without
       * measuring: a cleaned megabyte log is not measured again.
       */
      bytes?: number;
    }
  | {
      action: 'declined';
      reason: DeclineReason;
      /** Facts for reports (collapse, when the stash failed: the store's error). */
      detail?: Record<string, string | number>;
    };

/** What a stage sees of one result. */
export interface StageItem {
  result: ToolResult;
  /** Content as it is now, after earlier stages. */
  content: Content;
  /** Content as it came in, before any stage: what a stash must hold. */
  original: Content;
  /** True when an earlier stage of this run already dropped bytes of it. */
  lossyActed: boolean;
  /** Per-tool budget override for the stages that take one. */
  toolBudget?: number;
  /** The recall id of the original (its content hash), without storing anything. */
  originalId(): string;
  /** The full hash of the original, for keying (dedup, frozen decisions). */
  originalHash(): string;
  /** Bytes of the original as stored (its UTF-8), measured once: the bytes its hash is made of. */
  originalBytes(): number;
  /** UTF-8 bytes of `content` (of its JSON for blocks), measured once per content. */
  bytes(): number;
  /**
   * Stashes the original (once per run, however many stages ask) and returns its recall id;
   * throws when the store cannot take it.
   */
  stashOriginal(): Promise<string>;
}

/** What every stage may use. */
export interface StageContext {
  store: Store;
  tokenizer: Tokenizer;
  /** Context window of the model in use, when known. */
  modelWindow?: number;
  /** Results with `position` below this are in the provider's cached prefix. */
  cachedPrefix: number;
  /** True when the cache is provably cold (first request of a session, or past its TTL). */
  coldCache?: boolean;
  /** Decisions of earlier turns, replayed byte for byte. */
  frozen?: FrozenDecisions;
  /** Counts tokens for the statistics (default: `tokenizer`). */
  statsTokenizer?: Tokenizer;
  /** New decisions are written to the store once this settles (default: right after the turn). */
  writeDecisionsAfter?: PromiseLike<unknown>;
  /**
   * What rewriting this request's cached prefix costs and earns: stages that act on the prefix
   * (mask, supersede) act only where it pays. Absent: only results too small to matter are kept.
   */
  economics?: RequestEconomics;
}

/**
 * One step of the engine over a turn's results. `run` returns one decision per item, in order.
 *
 * @example
 * const upper: Stage = { name: 'textclean', lossy: false, pure: true, run: async (items) => items.map(() => ({ action: 'declined', reason: 'nothing_to_clean' })) };
 */
export interface Stage {
  readonly name: StageName;
  /** Drops bytes: must stash the original, and skips results that came in marked. */
  readonly lossy: boolean;
  /** Output is a pure function of (content, config): may act on a provably cold cached prefix. */
  readonly pure: boolean;
  /** Acts on old results on purpose (mask), replacing their frozen decisions. */
  readonly actsOnPrefix?: boolean;
  run(
    items: readonly StageItem[],
    ctx: StageContext,
    conversation: readonly StageItem[],
  ): Promise<(Decision | Error)[]>;
}
