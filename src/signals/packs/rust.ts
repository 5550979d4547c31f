import type { SignalPack } from '../rule.js';

/** Rust: panics, backtraces, rustc's arrows and cargo test's verdict. */
export const rust: SignalPack = {
  name: 'rust',
  rules: [
    {
      id: 'rust/panic',
      kind: 'exception',
      // Rust 1.86 and later name the thread's id too: `thread 'main' (4242) panicked`.
      pattern: /^\s*thread '.*'(?: \(\d+\))? panicked/,
      marks: ['anic'],
      middle: ['panic'],
      examples: [
        "thread 'main' panicked at src/main.rs:4:5:",
        "thread 'tests::charge' (25975) panicked at src/pay.rs:88:9:",
      ],
      counterExamples: ['the thread never panicked'],
    },
    {
      id: 'rust/test-result',
      kind: 'summary',
      pattern: /^\s*(?:test result:|error: could not compile)/,
      marks: ['test result', 'could not'],
      examples: ['test result: ok. 12 passed; 0 failed; 0 ignored'],
      counterExamples: ['the test results are in'],
    },
    {
      id: 'rust/backtrace-frame',
      kind: 'frame',
      pattern: /^\s*\d+: 0x[0-9a-f]+ - /,
      marks: ['0x[0-9a-f]'],
      examples: ['  12: 0x55d3c1a2b3c4 - std::rt::lang_start_internal'],
      counterExamples: ['  12: 0x55 is the address'],
    },
    {
      id: 'rust/arrow',
      kind: 'diagnostic',
      pattern: /^\s*--> \S+:\d+:\d+/,
      marks: ['--> '],
      examples: ['  --> src/cart.rs:12:9'],
      counterExamples: ['  --> see below'],
    },
  ],
  libraryPaths: [
    {
      id: 'rust/stdlib',
      pattern: '/rustc/[0-9a-f]{7,}/',
      examples: [
        '             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/panicking.rs:72:14',
      ],
    },
    {
      id: 'rust/crates',
      pattern: '[\\\\/]\\.(?:cargo|rustup)[\\\\/]',
      examples: [
        '             at /home/me/.cargo/registry/src/index.crates.io-6f17d22bba15001f/tokio-1.35.1/src/runtime/park.rs:282:63',
      ],
    },
  ],
};
