import { describe, expect, it } from 'vitest';
import { outlineLines } from './outline.js';

describe('outline', () => {
  it('finds the definitions and headings of common languages, numbered by a reader or not', () => {
    const file = [
      "import { z } from 'zod';",
      'export async function charge(order: Order) {',
      '  const total = sum(order);',
      '}',
      'export class Ledger {',
      '  post() {}',
      '}',
      'export type Money = { cents: number };',
      'export const refund = async (id: string) => {',
      'def settle(batch):',
      'pub fn reconcile(ledger: &Ledger) -> bool {',
      'func (l *Ledger) Close() error {',
      '## Refunds',
      '  if (total > 0) return total;',
      '// function notADefinition() in a comment',
    ].join('\n');
    expect(outlineLines(file).map((l) => l.line)).toEqual([1, 4, 7, 8, 9, 10, 11, 12]);
    const numbered = file
      .split('\n')
      .map((l, i) => `${String(i + 1).padStart(6)}→${l}`)
      .join('\n');
    expect(outlineLines(numbered).map((l) => l.line)).toEqual([1, 4, 7, 8, 9, 10, 11, 12]);
  });
});
