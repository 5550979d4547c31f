import { describe, expect, it } from 'vitest';
import { withText } from './blocks.js';

describe('withText', () => {
  it('keeps every field of a single text block but its text, so cache breakpoints stay put', () => {
    const block = {
      type: 'text',
      text: 'long output',
      cache_control: { type: 'ephemeral' },
      citations: null,
    };
    expect(withText([block], 'short')).toEqual([{ ...block, text: 'short' }]);
    expect(withText('long', 'short')).toBe('short');
  });
});
