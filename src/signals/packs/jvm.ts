import type { SignalPack } from '../rule.js';

/** Java, Kotlin and Scala: uncaught exceptions, their causes, Maven's and Gradle's verdicts. */
export const jvm: SignalPack = {
  name: 'jvm',
  rules: [
    {
      id: 'jvm/exception-in-thread',
      kind: 'exception',
      pattern: /^\s*Exception in thread /,
      marks: ['xception'],
      middle: ['Exception'],
      examples: ['Exception in thread "main" java.lang.IllegalStateException: boom'],
    },
    {
      id: 'jvm/caused-by',
      kind: 'exception',
      pattern: /^\s*Caused by:/,
      marks: ['Caused by'],
      examples: ['Caused by: java.io.IOException: Connection reset'],
      counterExamples: ['This was caused by: a typo'],
    },
    {
      id: 'jvm/build-result',
      kind: 'summary',
      pattern: /^\s*BUILD (?:SUCCESS|FAILED|SUCCESSFUL)/,
      marks: ['BUILD'],
      examples: ['BUILD SUCCESSFUL in 12s', 'BUILD SUCCESS'],
      counterExamples: ['BUILDING the image'],
    },
  ],
  libraryPaths: [
    {
      id: 'jvm/jdk',
      pattern: '\\b(?:java\\.base/|jdk\\.internal\\.)',
      examples: ['\tat java.base/java.util.ArrayList.get(ArrayList.java:427)'],
    },
  ],
};
