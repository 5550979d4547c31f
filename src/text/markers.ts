/**
 * Every marker spillway writes comes from this module (the client hooks' notes from
 * client-notes.ts, exported here too), so every reader (tests, replay, later stages that skip
 * marked content) agrees on one format.
 */

export { clientCutNote, clientStashNote, cutNoteIds, isClientStashNote } from './client-notes.js';

/** What a snip counts in. */
export type Unit = 'bytes' | 'chars' | 'tokens';

/**
 * The marker put where snip removed the middle: `\n[...snipped N UNIT...]\n`, or with a note
 * `\n[...snipped N UNIT. NOTE]\n`. N is exactly what was removed, in the same unit.
 *
 * @example
 * snipMarker(1200, 'bytes'); // '\n[...snipped 1200 bytes...]\n'
 * snipMarker(9, 'tokens', 'recall with spillway_expand id "s/c"'); // '\n[...snipped 9 tokens. recall with spillway_expand id "s/c"]\n'
 */
export function snipMarker(removed: number, unit: Unit, note?: string): string {
  return note ? `\n[...snipped ${removed} ${unit}. ${note}]\n` : `\n[...snipped ${removed} ${unit}...]\n`;
}

const SNIP_MARKER = /\n\[\.\.\.snipped (\d+) (bytes|chars|tokens)(?:\.\.\.|\. [^\n]*)\]\n/;

/**
 * Finds a snip marker in text: what it says was removed and where it sits.
 *
 * @example
 * parseSnipMarker('ab\n[...snipped 3 chars...]\nz'); // { removed: 3, unit: 'chars', index: 2, length: 25 }
 */
export function parseSnipMarker(
  text: string,
): { removed: number; unit: Unit; index: number; length: number } | null {
  const m = SNIP_MARKER.exec(text);
  if (!m) return null;
  return { removed: Number(m[1]), unit: m[2] as Unit, index: m.index, length: m[0].length };
}

/** Every marker the stages write carries this tag, so any later reader can find it. */
export const MARKER_TAG = /<<sw:[A-Za-z0-9_-]{1,64}>>/;

/** A marker tag as given back: plain, or with its angle brackets HTML-escaped (Gemini CLI escapes them in a hook's text). */
const GIVEN_TAG = /^\s*(?:<<|&lt;&lt;)sw:([A-Za-z0-9_-]{1,64})(?:>>|&gt;&gt;)\s*$/;

/**
 * The recall id in what a model passes as one: the ID of a whole marker tag, `<<sw:ID>>` or
 * `&lt;&lt;sw:ID&gt;&gt;` (the tag as a client that escapes angle brackets showed it), else the
 * text as it is (its own checks follow).
 *
 * @example
 * recallIdOf('&lt;&lt;sw:Ab3&gt;&gt;'); // 'Ab3'
 * recallIdOf('Ab3'); // 'Ab3'
 */
export function recallIdOf(given: string): string {
  return GIVEN_TAG.exec(given)?.[1] ?? given;
}

/**
 * The tag a stage's marker carries: `<<sw:ID>>`.
 *
 * @example
 * markerTag('Ab3'); // '<<sw:Ab3>>'
 */
export function markerTag(id: string): string {
  return `<<sw:${id}>>`;
}

/**
 * True when text carries a spillway marker.
 *
 * @example
 * hasMarker('... (3 lines omitted) <<sw:Ab3>> ...'); // true
 */
export function hasMarker(text: string): boolean {
  // The literal first: a native substring search crosses a megabyte result three times faster.
  return text.includes('<<sw:') && MARKER_TAG.test(text);
}

/**
 * Every id named by a stage's marker in the text, in order.
 *
 * @example
 * markerIds('a <<sw:Ab3>> b <<sw:Cd4>>'); // ['Ab3', 'Cd4']
 */
export function markerIds(text: string): string[] {
  return [...text.matchAll(/<<sw:([A-Za-z0-9_-]{1,64})>>/g)].map((m) => m[1] as string);
}

/**
 * The line collapse puts where a run of lines was omitted, numbered from 1 as an editor
 * numbers them. The first gap of a result names the recall id (and the file, when there is
 * one) and how many lines the original has; the others only their range, since the same id
 * recalls every one of them.
 *
 * A run of lines shaped like the one before it (numbers, ids and hashes aside) says so.
 *
 * @example
 * lineGapMarker(21, 1480, 3000, { id: 'Ab3' }); // '... (lines 21-1480 of 3000 omitted; full output: spillway_expand <<sw:Ab3>>) ...'
 * lineGapMarker(1502, 2980, 3000); // '... (lines 1502-2980 omitted) ...'
 * lineGapMarker(5, 904, 3000, { like: true }); // '... (lines 5-904 omitted: 900 more like the line above) ...'
 * lineGapMarker(8, 3095, 6000, { mostly: 'gcc -c src/m_1.c' }); // '... (lines 8-3095 omitted, mostly like: gcc -c src/m_1.c) ...'
 */
export function lineGapMarker(
  from: number,
  to: number,
  total: number,
  options: { id?: string | undefined; path?: string | undefined; like?: boolean; mostly?: string } = {},
): string {
  const range = from === to ? `line ${from}` : `lines ${from}-${to}`;
  const like = options.like
    ? `: ${to - from + 1} more like the line above`
    : options.mostly
      ? `, mostly like: ${options.mostly}`
      : '';
  if (options.id === undefined) return `... (${range} omitted${like}) ...`;
  const where = `full output: spillway_expand ${markerTag(options.id)}${options.path ? ` or ${options.path}` : ''}`;
  return `... (${range} of ${total} omitted${like}; ${where}) ...`;
}

/**
 * The line collapse puts above JSON it compacted (arrays cut to their first, last and odd
 * items, long strings to their ends, or texts in strings to the lines that matter: their own
 * markers number the lines of their string).
 *
 * @example
 * jsonCompactedHeader({ items: 1180, strings: 2 }, 'Ab3');
 * // '[JSON compacted: 1180 array items and the middles of 2 long strings left out; full output: spillway_expand <<sw:Ab3>>]'
 * jsonCompactedHeader({ items: 0, strings: 0, texts: 1 }, 'Ab3', undefined, ['/stdout']);
 * // '[JSON compacted: … 1 long string cut to the lines that matter (numbered within each: spillway_expand with field "/stdout" and lines "A-B"); …]'
 */
export function jsonCompactedHeader(
  omitted: { items: number; keys?: number; strings: number; deep?: number; texts?: number },
  id: string,
  path?: string,
  fields: readonly string[] = [],
): string {
  const keys = omitted.keys ? `, ${omitted.keys} keys of wide objects` : '';
  const strings = omitted.strings > 0 ? ` and the middles of ${omitted.strings} long strings` : '';
  const deep = omitted.deep ? `; ${omitted.deep} nested values shown by their size` : '';
  const n = omitted.texts ?? 0;
  const s = n === 1 ? '' : 's';
  // Which strings: a recall asks for a string's lines by its JSON pointer.
  const named = fields.length
    ? `: spillway_expand with field ${fields.map((f) => JSON.stringify(f)).join(' or ')} and lines "A-B"`
    : '';
  const texts = n ? `; ${n} long string${s} cut to the lines that matter (numbered within each${named})` : '';
  return `[JSON compacted: ${omitted.items} array items${keys}${strings} left out${deep}${texts}; full output: spillway_expand ${markerTag(id)}${path ? ` or ${path}` : ''}]`;
}

/**
 * The first line of a diff collapse compacted: what the diff changes, how much of its hunks is
 * shown, and the recall id.
 *
 * @example
 * diffCompactedHeader({ files: 83, added: 9012, removed: 215, shown: 1200, total: 9227 }, 'Ab3');
 * // '[diff compacted: 83 files, +9012 -215 lines; 1200 of 9227 hunk lines shown; full output: spillway_expand <<sw:Ab3>>]'
 */
export function diffCompactedHeader(
  diff: { files: number; added: number; removed: number; shown: number; total: number },
  id: string,
  path?: string,
): string {
  return `[diff compacted: ${diff.files} files, +${diff.added} -${diff.removed} lines; ${diff.shown} of ${diff.total} hunk lines shown; full output: spillway_expand ${markerTag(id)}${path ? ` or ${path}` : ''}]`;
}

/**
 * What collapse puts between the kept head and tail characters: compact (the id once), because
 * at small budgets every token of the marker is a token of content lost. Newlines around it
 * make the cut visible even inside one long line.
 *
 * @example
 * collapseCharMarker(52011, 'Ab3'); // '\n... (52011 characters omitted; full output: spillway_expand <<sw:Ab3>>) ...\n'
 */
export function collapseCharMarker(chars: number, id: string, path?: string): string {
  return `\n... (${chars} characters omitted; full output: spillway_expand ${markerTag(id)}${path ? ` or ${path}` : ''}) ...\n`;
}

/**
 * What linecap puts inside a line it cut.
 *
 * @example
 * linecapMarker(9000, 'Ab3'); // ' ... (9000 characters of this line cut; spillway_expand <<sw:Ab3>>) ... '
 */
export function linecapMarker(chars: number, id: string): string {
  return ` ... (${chars} characters of this line cut; spillway_expand ${markerTag(id)}) ... `;
}

/**
 * What dedup puts in place of a repeated result.
 *
 * @example
 * dedupPointer('toolu_01', 'Read', 'Ab3'); // '[same output as tool call toolu_01 (Read); spillway_expand id Ab3 recalls it] <<sw:Ab3>>'
 */
export function dedupPointer(earlierCall: string, tool: string, id: string): string {
  return `[same output as tool call ${earlierCall}${tool ? ` (${tool})` : ''}; spillway_expand id ${id} recalls it] ${markerTag(id)}`;
}

/** The start of every mask placeholder, so mask can recognise its own work. */
export const MASK_PREFIX = '[older tool result masked:';

/**
 * The one-line placeholder mask leaves for an old result.
 *
 * @example
 * maskPlaceholder('Bash', 'toolu_01', 1234, 'Ab3'); // '[older tool result masked: Bash call toolu_01, 1234 tokens; spillway_expand id Ab3 recalls it] <<sw:Ab3>>'
 */
export function maskPlaceholder(tool: string, call: string, tokens: number, id: string): string {
  return `${MASK_PREFIX} ${tool ? `${tool} call` : 'call'} ${call}, ${tokens} tokens; spillway_expand id ${id} recalls it] ${markerTag(id)}`;
}

/** The start of every cleared tool input, so the stages can recognise its own work. */
export const INPUT_CLEARED_PREFIX = '[tool input cleared:';

/**
 * What an old tool call's large argument becomes (a string in the call's JSON, so the call
 * stays valid for the API): the field, its size, and the id that recalls its exact text.
 *
 * @example
 * inputClearedMarker('Write', 'content', 5120, 'Ab3');
 * // '[tool input cleared: Write content, 5120 tokens; spillway_expand id Ab3 recalls it] <<sw:Ab3>>'
 */
export function inputClearedMarker(tool: string, field: string, tokens: number, id: string): string {
  const what = [tool, field].filter(Boolean).join(' ') || 'argument';
  return `${INPUT_CLEARED_PREFIX} ${what}, ${tokens} tokens; spillway_expand id ${id} recalls it] ${markerTag(id)}`;
}

/** The start of every supersede placeholder, so supersede can recognise its own work. */
export const SUPERSEDED_PREFIX = '[stale tool result:';

/**
 * The one-line placeholder supersede leaves for a result a later call made stale.
 *
 * @example
 * supersededPlaceholder('Read', 'toolu_01', 'src/a.ts edited since', 'toolu_07', 'Ab3');
 * // '[stale tool result: Read call toolu_01, src/a.ts edited since (call toolu_07); spillway_expand id Ab3 recalls it] <<sw:Ab3>>'
 */
export function supersededPlaceholder(
  tool: string,
  call: string,
  reason: string,
  later: string,
  id: string,
): string {
  return `${SUPERSEDED_PREFIX} ${tool ? `${tool} call` : 'call'} ${call}, ${reason} (call ${later}); spillway_expand id ${id} recalls it] ${markerTag(id)}`;
}

/** The snip note used when the original could not be stashed: nothing to recall. */
export const STASH_FAILED_NOTE =
  'the full output could not be saved and cannot be recalled; re-run the tool narrower (grep, head, tail, a line range) to see the rest';

/**
 * A shortened text whose original could not be stashed, made honest: every marker's recall
 * clause (`; full output: spillway_expand <<sw:ID>>[ or PATH]`) is removed, so the markers still
 * say what was left out but name nothing to recall, and one line on top says why.
 *
 * @example
 * withoutRecall('a\n... (lines 2-9 of 10 omitted; full output: spillway_expand <<sw:Ab3>>) ...\nz', 'Ab3');
 * // '[the full output could not be saved ...]\na\n... (lines 2-9 of 10 omitted) ...\nz'
 */
export function withoutRecall(text: string, id: string, path?: string): string {
  const clause = `; full output: spillway_expand ${markerTag(id)}`;
  const bare = path === undefined ? text : text.replaceAll(`${clause} or ${path}`, '');
  return `[${STASH_FAILED_NOTE}]\n${bare.replaceAll(clause, '')}`;
}

/** The tokens `withoutRecall` may add at most: its line on top. */
export const WITHOUT_RECALL_EXTRA = `[${STASH_FAILED_NOTE}]\n`;

/**
 * The marker put where the middle was cut: how many code points went, and the recall id when
 * the middle was stashed.
 *
 * @example
 * pruneMarker(5000); // '\n[...pruned 5000 chars...]\n'
 * pruneMarker(5000, 'Ab3'); // '\n[...pruned 5000 chars; spillway_expand <<sw:Ab3>>]\n'
 */
export function pruneMarker(removed: number, id?: string): string {
  return id
    ? `\n[...pruned ${removed} chars; spillway_expand ${markerTag(id)}]\n`
    : `\n[...pruned ${removed} chars...]\n`;
}

/** The start of every rerun diff, so a result spillway made is known as its own. */
export const RERUN_PREFIX = '[rerun of ';

/**
 * The first line of a rerun diff: which earlier run it is compared with, how much is the same,
 * and the ids that recall this output and the earlier one whole.
 *
 * @example
 * rerunHeader({ command: 'npm test', earlierCall: 'toolu_01', same: 1850, lines: 1900, id: 'Ab3', earlierId: 'Cd4' });
 */
export function rerunHeader(p: {
  command: string;
  earlierCall: string;
  same: number;
  lines: number;
  id: string;
  earlierId: string;
}): string {
  const command = p.command.length > 120 ? `${p.command.slice(0, 117)}...` : p.command;
  return `${RERUN_PREFIX}\`${command.replace(/\n/g, ' ')}\` (earlier: call ${p.earlierCall}): ${p.same} of ${p.lines} lines as in that run; shown: the lines that changed, each unchanged stretch as one line like the next. spillway_expand id ${p.id} recalls this output whole, id ${p.earlierId} the earlier one] ${markerTag(p.id)}`;
}

/** An unchanged stretch of a rerun diff (line numbers from 1, ends included). */
export const RERUN_SAME = /^\[lines (\d+)-(\d+) as lines (\d+)-(\d+) of the earlier run\]$/;

/**
 * The line that stands for an unchanged stretch of a rerun.
 *
 * @example
 * rerunSameLines(1, 120, 1, 120); // '[lines 1-120 as lines 1-120 of the earlier run]'
 */
export function rerunSameLines(from: number, to: number, earlierFrom: number, earlierTo: number): string {
  return `[lines ${from}-${to} as lines ${earlierFrom}-${earlierTo} of the earlier run]`;
}
