export { type CapOptions, type CapResult, cap, DEFAULT_CAP_BYTES } from './cap.js';
export { defaultBase } from './default-base.js';
export { DEFAULT_EXPAND_TOKENS, type ExpandRequest, expand, parseLineRange } from './expand.js';
export { FileStore, type FileStoreOptions } from './file-store.js';
export { parseRecallId, recallIdOf, type StoreKey, spillKey, stashKey } from './ids.js';
export { MemoryStore } from './memory-store.js';
export { RECALL_PAGE_BYTES, type RecallOptions, type RecallPage, recall, recallAll } from './recall.js';
export { RedisClusterStore, type RedisClusterStoreOptions } from './redis-cluster-store.js';
export { RedisStore, type RedisStoreOptions } from './redis-store.js';
export {
  applyRetention,
  type RetentionOptions,
  type RetentionReason,
  type RetentionReport,
} from './retention.js';
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
