export { type CapOptions, type CapResult, cap, DEFAULT_CAP_BYTES } from './cap.js';
export { defaultBase } from './default-base.js';
export { type LockOptions, withLock } from './file-lock.js';
export { FileStore, type FileStoreOptions } from './file-store.js';
export {
  assertIdPart,
  idPartProblem,
  parseRecallId,
  RENAMED_PRUNED_SESSION,
  recallIdOf,
  STASH_DIR,
  type StoreKey,
  spillKey,
  stashKey,
} from './ids.js';
export { JsonlLog, type LoadedLog } from './jsonl-log.js';
export { MemoryStore } from './memory-store.js';
export {
  notFoundMessage,
  RECALL_PAGE_BYTES,
  type RecallOptions,
  type RecallPage,
  recall,
  recallAll,
  recallFooter,
} from './recall.js';
export { RedisStore, type RedisStoreOptions, redactUrl } from './redis-store.js';
export { DAY_MS, type PruneOptions, type PruneReason, type PruneReport, prune } from './retention.js';
export { stash, stashId } from './stash.js';
export {
  type ByteRange,
  cutAtUtf8Boundary,
  DEFAULT_LIMITS,
  type EntryInfo,
  MiB,
  type PutOptions,
  type PutResult,
  type Store,
  type StoreLimits,
} from './store.js';
