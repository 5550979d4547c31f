import type { SignalPack } from '../rule.js';

/** Ruby: backtrace frames (`from app.rb:6:in 'Cart#total'`). */
export const ruby: SignalPack = {
  name: 'ruby',
  rules: [
    {
      id: 'ruby/frame',
      kind: 'frame',
      pattern: /^\s*(?:from )?\S+:\d+:in [`'][^`']*'\s*$/,
      marks: [":\\d+:in [`']"],
      examples: ["\tfrom shop.rb:6:in `block in total'", "app/models/order.rb:12:in 'Order#total'"],
      counterExamples: ['shop.rb:6:in the loop'],
    },
  ],
};
