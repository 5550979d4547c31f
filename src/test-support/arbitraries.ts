import fc from 'fast-check';

/** Pieces that stress cuts: astral code points, ZWJ emoji, combining marks, flags, CJK, ASCII. */
const TRICKY = [
  'a',
  'Z',
  ' ',
  '\n',
  '\r\n',
  '\t',
  'é',
  'e\u0301',
  '中',
  '😀',
  '👍🏽',
  '👩‍👩‍👧‍👦',
  '🇫🇷',
  '𝟘',
  'ß',
  "'s",
  '"',
  '{',
  ':',
  '1',
  '42',
  '<|endoftext|>',
  '\u0000',
  'ﷺ',
];

/** Well-formed strings rich in the characters that break naive cuts (0 to ~200 code units). */
export const trickyString = (maxPieces = 60): fc.Arbitrary<string> =>
  fc.oneof(
    fc.array(fc.constantFrom(...TRICKY), { maxLength: maxPieces }).map((p) => p.join('')),
    fc.string({ unit: 'grapheme', maxLength: maxPieces }),
    fc.string({ unit: 'binary', maxLength: maxPieces }),
    fc.string({ maxLength: 3, unit: 'grapheme-composite' }),
    fc.string({ maxLength: 3 }),
  );
