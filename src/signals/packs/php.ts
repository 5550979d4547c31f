import type { SignalPack } from '../rule.js';

/** PHP: backtrace frames (`#0 /srv/Cart.php(4): Cart::price()`). */
export const php: SignalPack = {
  name: 'php',
  rules: [
    {
      id: 'php/frame',
      kind: 'frame',
      pattern: /^#\d+ \S+\(\d+\): /,
      marks: ['\\(\\d+\\): '],
      examples: ['#0 /srv/shop/Cart.php(4): Cart::price()'],
      counterExamples: ['#0 is the first frame'],
    },
  ],
};
