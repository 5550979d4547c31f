import type { ResolvedEngineConfig, WithEngineConfig } from '../engine/index.js';
import type { Store } from '../store/index.js';

/**
 * What a replay takes: the engine config (`config`; `pipeline` is its former name) and these.
 *
 * @example
 * const options: ReplayOptions = { config: resolveEngineConfig({ preset: 'balanced' }), modelWindow: 200_000 };
 */
export type ReplayOptions = ReplaySettings & WithEngineConfig<ResolvedEngineConfig>;

/** A replay's settings besides its engine config. */
export interface ReplaySettings {
  /** Where stashes and frozen decisions go (default: a fresh memory store). */
  store?: Store;
  /** The model's context window, for maxFrac budgets and the over-window counts. */
  modelWindow?: number;
  /** Called after each turn, for progress. */
  onTurn?: (turn: number, turns: number) => void;
}
