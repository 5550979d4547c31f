import type { Content } from '../text/index.js';
import type { CollapseDecline } from './text.js';

/** Why the collapse of one output left it as it was (names the engine's decline reasons share). */
export type OutputDecline =
  | CollapseDecline
  | 'already_marked'
  | 'source_read'
  | 'stash_failed'
  | 'non_text_blocks';

/** What the collapse of one output decided: the engine's collapse stage takes it as its decision. */
export type OutputDecision =
  | { action: 'acted'; content: Content; stashId?: string; detail: Record<string, string | number> }
  | { action: 'declined'; reason: OutputDecline; detail?: Record<string, string | number> };
