import { type CallKey, cleanPath } from '../../text/index.js';

/** A call that came later in the conversation, in the order it was added (0 = added first). */
interface Later {
  key: CallKey;
  id: string;
  order: number;
}

/** The '/'-suffixes of a path: `a/b/c.ts` gives `b/c.ts` and `c.ts`. */
function suffixes(path: string): string[] {
  const out: string[] = [];
  for (let at = path.indexOf('/'); at >= 0; at = path.indexOf('/', at + 1)) out.push(path.slice(at + 1));
  return out;
}

/** One name per path and part, whatever characters either holds (a model writes both): the
 * path's length says where it ends. */
const readName = (path: string, part: string) => `${path.length}:${path}${part}`;

/**
 * The calls of a conversation added from its end backwards, indexed so that finding the latest
 * one that supersedes an earlier call costs a few map lookups, not a pass over every later call:
 * a session of thousands of results is decided in linear time. Two paths name one file when one
 * is the other or ends with it after a '/' (see `samePath`), so each read and edit is indexed by
 * its path and by each of its '/'-suffixes; only the first call added under a name is kept, which
 * is the latest in the conversation.
 *
 * @example
 * const later = new LaterCalls();
 * later.add({ kind: 'command', command: 'npm test' }, 'toolu_9');
 * later.latestSuperseding({ kind: 'command', command: 'npm test' })?.id; // 'toolu_9'
 */
export class LaterCalls {
  readonly #commands = new Map<string, Later>();
  /** Reads by path and part, edits by path: exactly, and by each '/'-suffix of their path. */
  readonly #reads = new Map<string, Later>();
  readonly #readsBySuffix = new Map<string, Later>();
  readonly #edits = new Map<string, Later>();
  readonly #editsBySuffix = new Map<string, Later>();
  #added = 0;

  /** Adds a call that comes before every call added so far. */
  add(key: CallKey, id: string): void {
    const later: Later = { key, id, order: this.#added++ };
    const keep = (map: Map<string, Later>, name: string) => {
      if (!map.has(name)) map.set(name, later);
    };
    if (key.kind === 'command') keep(this.#commands, key.command);
    else if (key.kind === 'read') {
      const path = cleanPath(key.path);
      keep(this.#reads, readName(path, key.part));
      for (const s of suffixes(path)) keep(this.#readsBySuffix, readName(s, key.part));
    } else {
      for (const p of key.paths) {
        const path = cleanPath(p);
        keep(this.#edits, path);
        for (const s of suffixes(path)) keep(this.#editsBySuffix, s);
      }
    }
  }

  /**
   * The latest call added so far that makes `key` stale: the same command run again, the same
   * part of the file read again, or the file edited (see `supersedes`).
   */
  latestSuperseding(key: CallKey): { key: CallKey; id: string } | undefined {
    if (key.kind === 'command') return this.#commands.get(key.command);
    if (key.kind !== 'read') return undefined;
    const path = cleanPath(key.path);
    // A later path equal to this one, ending with it, or that this one ends with.
    const found = [
      this.#reads.get(readName(path, key.part)),
      this.#readsBySuffix.get(readName(path, key.part)),
      this.#edits.get(path),
      this.#editsBySuffix.get(path),
    ];
    for (const s of suffixes(path)) found.push(this.#reads.get(readName(s, key.part)), this.#edits.get(s));
    let latest: Later | undefined;
    for (const f of found) if (f && (!latest || f.order < latest.order)) latest = f;
    return latest;
  }
}
