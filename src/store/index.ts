// spillway's folder, private files and logs live in home/; spillway/store keeps offering them.
export { defaultBase, JsonlLog, openRegularFile, spillwayHome, writeFileAtomic } from '../home/index.js';
export {
  applyRetention,
  FileBytes,
  FileStore,
  type FileStoreOptions,
  MemoryBytes,
  MemoryStore,
  RedisClusterStore,
  type RedisClusterStoreOptions,
  RedisStore,
  type RedisStoreOptions,
  type RetentionOptions,
  type RetentionReason,
  type RetentionReport,
} from './backends/index.js';
export type { ByteStore, WriteMode, WriteOutcome } from './byte-store.js';
export { type CapOptions, type CapResult, cap, DEFAULT_CAP_BYTES } from './cap.js';
export {
  assertIdPart,
  FROZEN_PREFIX,
  idPartProblem,
  ownOutputKey,
  parseRecallId,
  recallIdOf,
  type StoreKey,
  spillKey,
  stashKey,
} from './ids.js';
export { openStore, type StoreLocation } from './open.js';
export { type QuotaOptions, QuotaStore } from './quota-store.js';
export {
  DEFAULT_EXPAND_TOKENS,
  type ExpandRequest,
  expand,
  parseLineRange,
  RECALL_PAGE_BYTES,
  type RecallOptions,
  type RecallPage,
  recall,
  recallAll,
} from './recall/index.js';
export { makeRoom, planRoom, type RoomPlan, type RoomView } from './room.js';
export { readAtSource, recordAtSource } from './source-log.js';
export { StashBatch, stash, stashOriginal } from './stash.js';
export {
  type ByteRange,
  DEFAULT_LIMITS,
  type EntryInfo,
  MAX_CAPTURE_BYTES,
  type PutOptions,
  type PutResult,
  putAllIfAbsent,
  type Store,
  type StoreEntry,
  type StoreLimits,
} from './store.js';
export {
  DEFAULT_UPSTREAMS,
  type KeptUpstreams,
  parseKeptUpstreams,
  readKeptUpstreams,
  type UpstreamApi,
  upstreamsFile,
} from './upstreams-file.js';
