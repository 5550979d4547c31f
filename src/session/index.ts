export * from './events.js';
export {
  collapsePruner,
  contentPruner,
  enginePruner,
  type PrunedResult,
  type Pruner,
  type PruneSessionOptions,
  type PruneSessionResult,
  pipelinePruner,
  pruneSession,
} from './prune-session.js';
export { Session, type SessionOptions } from './session.js';
