import type { ProviderExamples } from '../provider-spec.js';

/** Gemini CLI's shape: a functionCall part and its functionResponse (`response.output`). */
export const EXAMPLES: ProviderExamples = {
  request: {
    path: '/v1beta/models/gemini-2.5-pro:streamGenerateContent',
    headers: { 'x-goog-api-key': 'AIza-example' },
    body: {
      systemInstruction: { parts: [{ text: 'You are Gemini CLI.' }] },
      generationConfig: { maxOutputTokens: 8192 },
      contents: [
        { role: 'user', parts: [{ text: 'run the tests' }] },
        {
          role: 'model',
          parts: [{ functionCall: { id: 'c1', name: 'run_shell_command', args: { command: 'npm test' } } }],
        },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 'c1',
                name: 'run_shell_command',
                response: { output: 'PASS  src/a.test.ts\nFAIL  src/b.test.ts' },
              },
            },
          ],
        },
      ],
      tools: [{ functionDeclarations: [{ name: 'run_shell_command' }] }],
    },
  },
  answer: {
    body: {
      candidates: [
        { content: { role: 'model', parts: [{ text: 'One test fails.' }] }, finishReason: 'STOP' },
      ],
      usageMetadata: {
        promptTokenCount: 7000,
        cachedContentTokenCount: 6000,
        candidatesTokenCount: 5,
        totalTokenCount: 7005,
      },
      modelVersion: 'gemini-2.5-pro',
    },
    usage: { input: 1000, cacheRead: 6000, cacheWrite: 0 },
  },
};
