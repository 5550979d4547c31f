import type { SignalPack } from '../rule.js';

/** .NET: its frames are `at` frames (core/at-frame); the runtime's own ones rank last. */
export const dotnet: SignalPack = {
  name: 'dotnet',
  rules: [],
  libraryPaths: [
    {
      id: 'dotnet/runtime',
      pattern: '\\bat (?:System|Microsoft)\\.',
      examples: ['   at System.Linq.Enumerable.First[TSource](IEnumerable`1 source)'],
    },
  ],
};
