export { FileStore, type FileStoreOptions } from './backends/file-store.js';
export { MemoryStore } from './backends/memory-store.js';
export { RedisClusterStore, type RedisClusterStoreOptions } from './backends/redis-cluster-store.js';
export { RedisStore, type RedisStoreOptions } from './backends/redis-store.js';
export {
  applyRetention,
  type RetentionOptions,
  type RetentionReason,
  type RetentionReport,
} from './backends/retention.js';
export { type CapOptions, type CapResult, cap, DEFAULT_CAP_BYTES } from './cap.js';
export { defaultBase } from './default-base.js';
export { parseRecallId, recallIdOf, type StoreKey, spillKey, stashKey } from './ids.js';
export { DEFAULT_EXPAND_TOKENS, type ExpandRequest, expand, parseLineRange } from './recall/expand.js';
export {
  RECALL_PAGE_BYTES,
  type RecallOptions,
  type RecallPage,
  recall,
  recallAll,
} from './recall/recall.js';
export { stash, stashOriginal } from './stash.js';
export {
  type ByteRange,
  DEFAULT_LIMITS,
  type EntryInfo,
  type PutOptions,
  type PutResult,
  type Store,
  type StoreLimits,
} from './store.js';
