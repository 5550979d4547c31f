import type { SignalPack } from '../rule.js';

/** C and C++: the linker, clang's summaries, gdb's and the sanitizers' frames. */
export const c: SignalPack = {
  name: 'c',
  rules: [
    {
      id: 'c/undefined-reference',
      kind: 'error',
      pattern: /undefined reference/,
      marks: ['undefined reference'],
      middle: ['undefined reference'],
      examples: ["/usr/bin/ld: main.o: in function `main': undefined reference to `charge'"],
    },
    {
      id: 'c/diagnostics-generated',
      kind: 'summary',
      pattern: /^\s*\d+ (?:errors?|warnings?) generated/,
      marks: ['generated'],
      examples: ['2 warnings generated.'],
      // (1 error generated. is an error first: core/error-word.)
      counterExamples: ['0 files generated'],
    },
    {
      id: 'c/gdb-frame',
      kind: 'frame',
      pattern: /^\s*#\d+\s+0x[0-9a-f]+ in /,
      marks: ['0x[0-9a-f]'],
      examples: [
        '#1 0x000055555555513d in charge (cart=0x0) at cart.c:12',
        '    #0 0x4f5a2e in main /src/cart.c:9:3',
      ],
      counterExamples: ['#1 in the charts'],
    },
  ],
};
