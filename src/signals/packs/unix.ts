import type { SignalPack } from '../rule.js';

/** A shell and the system: crashes and signals, missing commands and files, apt, curl. */
export const unix: SignalPack = {
  name: 'unix',
  rules: [
    {
      id: 'unix/shell-lost-process',
      kind: 'error',
      // A shell's report of a process it lost.
      pattern: /^(?:zsh|bash|sh|fish): (?:killed|segmentation fault|bus error|abort|illegal instruction)/,
      marks: [': killed', 'egmentation', 'bort', 'illegal instruction', 'rror'],
      middle: [': (?:killed|segmentation fault|bus error|abort|illegal instruction)'],
      examples: ['zsh: killed     node index.js', 'zsh: illegal instruction  ./a.out'],
      counterExamples: ['bash: running ./build.sh'],
    },
    {
      id: 'unix/crash',
      kind: 'error',
      pattern: /Segmentation fault|Bus error\b/,
      marks: ['egmentation', 'rror'],
      middle: ['Segmentation fault', 'Bus error'],
      examples: ['Segmentation fault (core dumped)', 'Bus error'],
      counterExamples: ['segfaults are rare here'],
    },
    {
      // Not searched for in a long output's middle on its own (a mark of its own there costs a
      // fifth more scan time): found at its ends, and by reading on from an error before it.
      id: 'unix/killed',
      kind: 'error',
      pattern: /core dumped|Killed\b|Aborted\b/,
      marks: ['dumped', 'Killed', 'bort'],
      examples: ['Aborted (core dumped)', 'Killed'],
      counterExamples: ['the job was not killed'],
    },
    {
      id: 'unix/not-found',
      kind: 'error',
      pattern: /command not found|No such file or directory|[Pp]ermission denied/,
      marks: ['not found', 'No such', 'denied'],
      examples: [
        'bash: foo: command not found',
        'permission denied: ./run.sh',
        'cat: notes.md: No such file or directory',
      ],
      counterExamples: ['page not found in the index'],
    },
    {
      id: 'unix/apt-error',
      kind: 'error',
      pattern: /^E: /,
      marks: ['^E: '],
      examples: ['E: Unable to locate package left-pad'],
      counterExamples: ['E.g. this one'],
    },
    {
      id: 'unix/curl-error',
      kind: 'error',
      pattern: /^curl: \(\d+\)/,
      marks: ['^curl: '],
      examples: ['curl: (7) Failed to connect to localhost port 8080 after 0 ms: Connection refused'],
      counterExamples: ['curl: try --help'],
    },
  ],
  libraryPaths: [
    {
      id: 'unix/system-libraries',
      pattern: '/usr/(?:local/)?(?:lib|lib64|libexec|include|share)/',
      examples: ['#3 0x00007f1c2a4b in __libc_start_main () from /usr/lib/x86_64-linux-gnu/libc.so.6'],
    },
    {
      id: 'unix/shared-objects',
      pattern: '\\.so(?:\\.\\d+)*\\b',
      examples: ['#2 0x00007f1c in start_thread () at libpthread.so.0'],
    },
  ],
};
