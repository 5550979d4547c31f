import type { Reporter, TestModule } from 'vitest/node';

/**
 * A vitest reporter that ends the run with every skipped test, file by file, so what did not
 * run, and why (a skipped test's name carries its reason), is in the default output, not only
 * in a verbose one.
 */
export default class SkipReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const module of modules) {
      const skipped = [...module.children.allTests('skipped')].map((t) => t.fullName);
      if (skipped.length === 0) continue;
      lines.push(`  ${module.relativeModuleId}`);
      for (const name of skipped) lines.push(`    - ${name}`);
    }
    if (lines.length > 0) process.stdout.write(`\nSkipped, and why:\n${lines.join('\n')}\n`);
  }
}
