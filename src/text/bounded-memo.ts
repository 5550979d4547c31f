/**
 * `compute` with a memory of up to `max` answers, for pure functions on a hot path whose keys a
 * client controls (model names, request paths): past `max` keys the memory starts over, so no
 * sequence of keys makes it grow without bound. Answers are shared: treat them as read-only.
 *
 * @example
 * const limitOf = boundedMemo((model: string) => expensiveLookup(model), 256);
 * limitOf('claude-sonnet-4-5'); limitOf('claude-sonnet-4-5'); // looked up once
 */
export function boundedMemo<V>(compute: (key: string) => V, max: number): (key: string) => V {
  const answers = new Map<string, V>();
  return (key) => {
    if (answers.has(key)) return answers.get(key) as V;
    const answer = compute(key);
    if (answers.size >= max) answers.clear();
    answers.set(key, answer);
    return answer;
  };
}
