import { afterEach, expect } from 'vitest';
import { getTokenizer } from '../text/tokenizers/index.js';
import { buildLog } from './build-log.js';
import { type ModelStep, type ModelTurn, type ScriptedModel, startScriptedModel } from './scripted-model.js';

/** The build log every integration test's agent runs into, and the line the model must see. */
export const AGENT_LOG = buildLog();
/** What the scripted model answers once it has recalled the error. */
export const AGENT_ANSWER = 'amount is undeclared';

/**
 * An agent's loop as the scripted model plays it: call `build`, then recall the error by grep
 * through the marker's id, then answer. `prefix` is the call ids' style (`call_`, `toolu_`).
 *
 * @example
 * const model = await startScriptedModel(buildAndRecall('call_'));
 */
export function buildAndRecall(prefix: string): (turn: ModelTurn) => ModelStep {
  return (turn) => {
    if (!turn.lastOutput) return { kind: 'call', callId: `${prefix}build`, name: 'build', input: {} };
    if (turn.lastOutput.callId === `${prefix}build`) {
      const id = /<<sw:([\w-]+)>>/.exec(turn.lastOutput.text)?.[1] ?? 'none';
      return {
        kind: 'call',
        callId: `${prefix}recall`,
        name: 'spillway_expand',
        input: { id, grep: 'amount' },
      };
    }
    return { kind: 'answer', text: AGENT_ANSWER };
  };
}

/**
 * The checks every integration answers to, on the conversation items of the three requests
 * (Responses `input`, Messages `messages`): the build's output reached the model within
 * `tokens` (and a little for its JSON), with its error line; the recall gave the error line;
 * every item of the second request went again byte for byte in the third.
 *
 * @example
 * expectBuildAndRecall(requests.map((r) => r.input), 2000);
 */
export function expectBuildAndRecall(items: readonly unknown[][], tokens: number): void {
  expect(items).toHaveLength(3);
  const [, second = [], third = []] = items;
  const error = JSON.stringify(AGENT_LOG.error).slice(1, -1);
  const shown = JSON.stringify(second.at(-1));
  expect(shown).toContain(error);
  expect(getTokenizer('o200k').count(shown)).toBeLessThanOrEqual(tokens * 1.1);
  expect(JSON.stringify(third.at(-1))).toContain(error);
  const before = second.map((i) => JSON.stringify(i));
  expect(third.slice(0, before.length).map((i) => JSON.stringify(i))).toEqual(before);
}

/**
 * The scripted model of each test of a file, started by `start` and closed after the test.
 *
 * @example
 * const models = scriptedModelPerTest();
 * const model = await models.start(buildAndRecall('call_'));
 */
export function scriptedModelPerTest(): {
  start: (script: (turn: ModelTurn) => ModelStep) => Promise<ScriptedModel>;
} {
  let model: ScriptedModel | undefined;
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });
  return {
    start: async (script) => {
      model = await startScriptedModel(script);
      return model;
    },
  };
}
