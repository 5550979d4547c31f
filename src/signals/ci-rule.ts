/**
 * What a line is in the layout of a CI job's log:
 * - `chore`: it opens the runner's own work (set-up, checkout, caches, clean-up), which lasts
 *   until a step starts;
 * - `step`: it starts a step and names its command;
 * - `echo`: right after a step that echoes its script, a line of that echo (not its output);
 * - `noise`: a line of bookkeeping wherever it is (a block closed, a layer cached);
 * - `exit`: the step's own line saying that it failed, with its exit code;
 * - `name`: the job's or stage's name, kept even inside a chore (which job failed).
 */
export type CiRole = 'chore' | 'step' | 'echo' | 'noise' | 'exit' | 'name';

/** One rule of a CI system's layout (see packs/ci.ts); a generated test holds it to its examples. */
export interface CiRule {
  /** `system/name`, e.g. `actions/run-group`: shown by `spillway explain`. */
  id: string;
  role: CiRole;
  /** Tested on a line without its CI timestamp, colour codes left in; flagless. */
  pattern: RegExp;
  /** A step whose script is echoed after it (`echo` lines follow until one is not). */
  echoes?: boolean;
  examples: readonly string[];
  counterExamples?: readonly string[];
}
