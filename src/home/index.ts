export { defaultBase, spillwayHome } from './default-base.js';
export { type LockOptions, processAlive, withLock } from './file-lock.js';
export { JsonlLog, type LoadedLog } from './jsonl-log.js';
export {
  appendPrivate,
  ensurePrivateDir,
  linkRefused,
  lstatQuick,
  type OpenedFile,
  openPrivateForRead,
  openRegularFile,
  TEMP_SUFFIX,
  writeFileAtomic,
} from './private-fs.js';
