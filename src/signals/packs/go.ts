import type { SignalPack } from '../rule.js';

/** Go: panics, goroutine frames, `go test`'s failures and what a test logs. */
export const go: SignalPack = {
  name: 'go',
  rules: [
    {
      id: 'go/panic',
      kind: 'exception',
      pattern: /^\s*panic(?:ked)?\b/,
      marks: ['anic'],
      middle: ['panic'],
      examples: ['panic: runtime error: index out of range [3] with length 3'],
      counterExamples: ["DON'T PANIC: the answer is 42"],
    },
    {
      id: 'go/test-fail',
      kind: 'failure',
      pattern: /^\s*--- FAIL:/,
      marks: ['FAIL'],
      middle: ['FAIL'],
      examples: ['--- FAIL: TestCharge (0.00s)', '    --- FAIL: TestCharge/empty_cart (0.00s)'],
      counterExamples: ['--- PASS: TestTotal (0.00s)', '--- SKIP: TestTotal (0.00s)'],
    },
    {
      id: 'go/frame',
      kind: 'frame',
      // A tab, the file and line, and the offset (absent where the call was inlined).
      pattern: /^\t(?:\/\S*:\d+(?: \+0x[0-9a-f]+)?|\S+:\d+ \+0x[0-9a-f]+)\s*$/,
      marks: ['^\\t/', '0x[0-9a-f]'],
      examples: [
        '\t/srv/shop/cart/cart.go:8',
        '\t/srv/shop/main.go:27 +0x16c',
        '\texample.com/shop/main.go:27 +0x16c',
      ],
      counterExamples: ['\t/srv/shop/main.go: reading the config'],
    },
    {
      id: 'go/test-log',
      kind: 'diagnostic',
      // t.Errorf's and t.Fatalf's line: four spaces, the test file and line.
      pattern: /^ {4}[\w./-]+\.go:\d+: /,
      marks: ['\\.go:\\d+: '],
      examples: ['    cart_test.go:409: total of order 400 = 6, want 7'],
      counterExamples: ['cart_test.go:409 is where it starts'],
    },
  ],
  libraryPaths: [
    {
      id: 'go/runtime',
      pattern: '[\\\\/]go[\\\\/](?:src|pkg[\\\\/]mod)[\\\\/]',
      examples: ['\t/usr/local/go/src/runtime/panic.go:920 +0x270'],
    },
  ],
};
