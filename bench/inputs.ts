import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { corpusAvailable, corpusFiles } from '../src/test-support/corpus.js';

export const MB = 1024 * 1024;

/** Joins pieces, cycling through them, until the result reaches `bytes` UTF-8 bytes. */
function cycleTo(pieces: string[], bytes: number, sep: string): string {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const piece = pieces[i % pieces.length] as string;
    out.push(piece);
    size += Buffer.byteLength(piece) + sep.length;
  }
  return out.join(sep);
}

/** Text of the tool results in the corpus (real agent outputs), or a real program's output. */
function realOutputs(): { text: string; source: string } {
  if (corpusAvailable) {
    const texts: string[] = [];
    for (const file of corpusFiles()) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        // Tool results of Claude Code transcripts: the `content` strings inside tool_result blocks.
        for (const m of line.matchAll(/"type":"tool_result","content":"((?:[^"\\]|\\.)*)"/g)) {
          texts.push(JSON.parse(`"${m[1]}"`) as string);
        }
      }
    }
    return { text: texts.join('\n'), source: 'tool results of ../shared/corpus' };
  }
  return {
    text: execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }),
    source: 'node --v8-options',
  };
}

/** A multi-line log of about `bytes` bytes made from real output. */
export function multiLineLog(bytes: number): { text: string; source: string } {
  const { text, source } = realOutputs();
  return { text: cycleTo(text.split('\n'), bytes, '\n'), source };
}

/** One line of compact JSON of about `bytes` bytes made from real records. */
export function oneLineJson(bytes: number): { text: string; source: string } {
  let records: unknown[];
  let source: string;
  if (corpusAvailable) {
    records = corpusFiles()
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean))
      .map((l) => JSON.parse(l) as unknown);
    source = 'records of the corpus JSONL transcripts';
  } else {
    records = [process.report.getReport()];
    source = 'process.report.getReport()';
  }
  const pieces = records.map((r) => JSON.stringify(r));
  return { text: `{"items":[${cycleTo(pieces, bytes - 12, ',')}]}`, source };
}

/**
 * An API answer of about `bytes` bytes on one line: an array of order records, the kind
 * `gh api` or `kubectl get -o json` prints, with one failed order in the middle. Collapse
 * compacts it by its JSON structure.
 */
export function apiAnswer(bytes: number): { text: string; source: string } {
  const record = (i: number) =>
    JSON.stringify({
      id: i,
      sku: `SKU-${i}`,
      status: 'shipped',
      qty: i % 9,
      tags: ['standard', i % 2 ? 'gift' : 'plain'],
      updated: `2026-11-${String((i % 28) + 1).padStart(2, '0')}T10:00:00Z`,
    });
  const count = Math.floor(bytes / record(10_000).length);
  const orders = Array.from({ length: count }, (_, i) =>
    i === count >> 1
      ? JSON.stringify({ id: i, sku: `SKU-${i}`, status: 'failed', error: 'card declined' })
      : record(i),
  );
  return {
    text: `{"page":1,"orders":[${orders.join(',')}]}`,
    source: `an API answer of ${count} order records`,
  };
}
