import { SpillwayError } from '../../errors.js';
import { defaultBase } from '../../home/index.js';
import { STASH_DIR, type StoreKey } from '../ids.js';
import { QuotaStore } from '../quota-store.js';
import { DEFAULT_LIMITS, type StoreLimits } from '../store.js';
import { FileBytes } from './file-bytes.js';
import { applyRetention } from './retention.js';

export interface FileStoreOptions extends Partial<StoreLimits> {
  /** Base directory (default `$SPILLWAY_HOME/tool-results`, else `~/.spillway/tool-results`). */
  base?: string;
  /** How long to wait for the cross-process lock (default 10 s). */
  lockTimeoutMs?: number;
  /** Run retention on the first spill of this process (default true). */
  pruneOnFirstSpill?: boolean;
  /** Sessions that wrote within this are never removed to make room (default 15 minutes). */
  activeAgeMs?: number;
}

/** The bases retention ran on in this process (once per base, on its first spill). */
const prunedBases = new Set<string>();

/**
 * The default {@link Store}: the quotas above the file backend ({@link FileBytes}), shared by
 * every process through the base's lock and ledger; retention runs once per base and process,
 * before its first spill.
 *
 * @example
 * const store = new FileStore({ base: '/tmp/spill' });
 * await store.put({ dir: 'sess', name: 'call_1' }, Buffer.from(output));
 * store.pathOf({ dir: 'sess', name: 'call_1' }); // '/tmp/spill/sess/call_1.txt'
 */
export class FileStore extends QuotaStore {
  readonly base: string;
  readonly #files: FileBytes;

  constructor(options: FileStoreOptions = {}) {
    const limits = Object.freeze({
      maxFileBytes: options.maxFileBytes ?? DEFAULT_LIMITS.maxFileBytes,
      maxSessionBytes: options.maxSessionBytes ?? DEFAULT_LIMITS.maxSessionBytes,
      maxTotalBytes: options.maxTotalBytes ?? DEFAULT_LIMITS.maxTotalBytes,
    });
    for (const [k, v] of Object.entries(limits)) {
      if (!Number.isSafeInteger(v) || v <= 0)
        throw new SpillwayError('SPILLWAY_BAD_CONFIG', `${k} must be a whole number > 0, got ${v}`);
    }
    const base = options.base ?? defaultBase();
    const pruneOnce = async (dir: string) => {
      if (options.pruneOnFirstSpill === false || dir === STASH_DIR || prunedBases.has(bytes.base)) return;
      prunedBases.add(bytes.base);
      await applyRetention(bytes.base, {
        keep: dir,
        maxTotalBytes: limits.maxTotalBytes,
        activeAgeMs: options.activeAgeMs,
        lockTimeoutMs: options.lockTimeoutMs,
      });
    };
    const bytes = new FileBytes(base, options.lockTimeoutMs, pruneOnce);
    super(bytes, { limits, activeAgeMs: options.activeAgeMs, hint: '; run "spillway prune"' });
    this.base = bytes.base;
    this.#files = bytes;
  }

  get lockPath(): string {
    return this.#files.lockPath;
  }

  pathOf(key: StoreKey): string {
    return this.#files.pathOf(key);
  }
}
