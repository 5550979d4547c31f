export { DiscardStore } from './discard-store.js';
export { FileBytes } from './file-bytes.js';
export { FileStore, type FileStoreOptions } from './file-store.js';
export { MemoryBytes, MemoryStore } from './memory-store.js';
export { RedisClusterStore, type RedisClusterStoreOptions } from './redis-cluster-store.js';
export { isClusterUrl } from './redis-cluster-url.js';
export { RedisStore, type RedisStoreOptions } from './redis-store.js';
export { checkRedisUrl } from './redis-url.js';
export {
  applyRetention,
  type RetentionOptions,
  type RetentionReason,
  type RetentionReport,
} from './retention.js';
