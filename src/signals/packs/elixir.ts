import type { SignalPack } from '../rule.js';

/** Elixir and Erlang: `** (RuntimeError)` exceptions, their frames, ExUnit's failures. */
export const elixir: SignalPack = {
  name: 'elixir',
  rules: [
    {
      id: 'elixir/exception',
      kind: 'exception',
      pattern: /^\s*\*\* (?:\([\w.]+\)|exception) /,
      marks: ['\\*\\* (?:\\(|exception)'],
      examples: [
        '** (Enum.OutOfBoundsError) out of bounds error',
        '** exception error: an error occurred when evaluating an arithmetic expression',
      ],
      counterExamples: ['** (see the docs) for more'],
    },
    {
      id: 'elixir/exunit-failure',
      kind: 'failure',
      pattern: /^\s*\d+\) test .+ \([\w.]+\)\s*$/,
      marks: ['^\\s*\\d+\\) test '],
      examples: ['  1) test charges the card (Shop.CartTest)'],
      counterExamples: ['  1) test the card first'],
    },
    {
      id: 'elixir/frame',
      kind: 'frame',
      pattern: /^\s+(?:\([\w.-]+ [\w.+-]+\) )?\S+\.(?:exs?|erl):\d+: /,
      marks: ['\\.(?:exs?|erl):\\d'],
      examples: [
        '    (elixir 1.14.0) lib/enum.ex:1072: Enum.fetch!/2',
        '    shop.exs:4: anonymous fn/3 in Shop.Cart.total/2',
      ],
      counterExamples: ['lib/enum.ex:1072: at the start of a line'],
    },
  ],
};
