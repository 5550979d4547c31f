import { wordNotInPath } from '../patterns.js';
import type { SignalPack } from '../rule.js';

/**
 * Prose (papers, docs, web pages, issues): the sentences that speak of errors and failures in
 * the forms the log rules leave out (plural, ending a sentence, in a compound). Diagnostics: a
 * sentence about an error is not one, and a real error's line comes first.
 */
export const prose: SignalPack = {
  name: 'prose',
  rules: [
    {
      id: 'prose/error-mention',
      kind: 'diagnostic',
      pattern: new RegExp(
        `(?<!\\b(?:0|no|zero) )${wordNotInPath('[Ee]rrors|[Ff]ailures|[Ee]xceptions|[Cc]rash(?:es|ed)')}(?!\\s*[:=]\\s*0\\b)|(?<![-_/.\\w])[Ee]rror(?:-[a-z]+\\b(?![-_/.])|[.!?]\\s*$)`,
      ),
      marks: ['rror', 'ailure', 'xception', 'rash'],
      examples: [
        'We found three errors in the proof of Lemma 2.',
        'Errors are reported on stderr.',
        'The run ends in an error.',
        'An error-free run takes 3 minutes.',
        'The service crashed twice during the migration.',
      ],
      // A line that merely ends in "error" is as often a log's as prose's (retried after an error).
      counterExamples: [
        'errors: 0',
        '0 errors',
        'there were no errors',
        'retried the request after an error',
        '     13054 /usr/include/xmlsec1/xmlsec/errors.h',
        '      1012 /usr/include/x86_64-linux-gnu/bits/error-ldbl.h',
        '       935 /usr/lib/google-cloud-sdk/lib/googlecloudsdk/api_lib/active_directory/exceptions.py',
      ],
    },
  ],
};
