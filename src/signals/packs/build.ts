import type { SignalPack } from '../rule.js';

/**
 * Build tools whose failures do not say "error" where the generic rules look: Maven, Gradle
 * (and Kotlin's compiler under it), Terraform. Their level and box prefixes (`[ERROR] `, `│ `)
 * are taken off before the rules are tried (see prefixes.ts), so the rules match the message.
 */
export const build: SignalPack = {
  name: 'build',
  rules: [
    {
      id: 'build/class-version',
      kind: 'error',
      // javac or the JVM reading a class compiled for a newer Java than the one running.
      pattern: /class file has wrong version \d+\.\d+, should be \d+\.\d+|UnsupportedClassVersionError/,
      marks: ['wrong version', 'UnsupportedClassVersion'],
      middle: ['wrong version', 'UnsupportedClassVersion'],
      examples: [
        '    class file has wrong version 55.0, should be 52.0',
        '[ERROR]     class file has wrong version 61.0, should be 55.0',
      ],
      counterExamples: ['checking that the class file has the right version'],
    },
    {
      id: 'build/maven-compile-error',
      kind: 'error',
      // The compiler plugin's `/path/File.java:[line,col] message` under an [ERROR] level.
      pattern: /^(?:\[ERROR\] )?\/?[\w./-]+\.(?:java|kt|scala|groovy):\[\d+,\d+\] /,
      marks: ['\\.(?:java|kt|scala|groovy):\\['],
      middle: ['\\.java:\\['],
      examples: [
        '[ERROR] /home/runner/work/shop/src/main/java/shop/Cart.java:[42,17] cannot find symbol',
        'src/main/java/shop/Cart.java:[42,17] incompatible types: String cannot be converted to int',
      ],
      counterExamples: ['[INFO] Compiling 12 source files to /home/runner/work/shop/target/classes'],
    },
    {
      id: 'build/surefire-failures',
      kind: 'failure',
      // Surefire's and Failsafe's count line when a test failed or erred (not when all passed).
      pattern:
        /^(?:\[(?:INFO|ERROR|WARNING)\] )?Tests run: \d+, Failures: (?:[1-9]\d*, Errors: \d+|\d+, Errors: [1-9]\d*)/,
      marks: ['Tests run: '],
      middle: ['Failures: [1-9]', 'Errors: [1-9]'],
      examples: [
        '[INFO] Tests run: 5, Failures: 1, Errors: 0, Skipped: 0',
        '[ERROR] Tests run: 3, Failures: 0, Errors: 2, Skipped: 0, Time elapsed: 0.31 s <<< FAILURE! - in shop.CartTest',
      ],
      counterExamples: ['[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 1'],
    },
    {
      id: 'build/gradle-what-went-wrong',
      kind: 'failure',
      // Gradle's failure report: its header, then the cause on the next lines.
      pattern: /^\* What went wrong:|^Execution failed for task '/,
      marks: ['What went wrong', 'Execution failed for task'],
      middle: ['What went wrong', 'Execution failed for task'],
      examples: ['* What went wrong:', "Execution failed for task ':app:compileKotlin'."],
      counterExamples: ['* Try:'],
    },
    {
      id: 'build/gradle-task-failed',
      kind: 'failure',
      pattern: /^> Task :[\w:.-]+ FAILED$/,
      marks: ['> Task :'],
      examples: ['> Task :app:test FAILED'],
      counterExamples: ['> Task :app:test UP-TO-DATE', '> Task :app:compileJava'],
    },
    {
      id: 'build/kotlin-diagnostic',
      kind: 'error',
      // kotlinc under Gradle: `e: ` (error) and the file with its line and column.
      pattern: /^e: (?:file:\/\/)?\/?[\w./-]+\.kts?(?::\d+:\d+|: \(\d+, \d+\)):? /,
      marks: ['^e: '],
      examples: [
        'e: file:///home/runner/work/shop/app/src/main/kotlin/Cart.kt:12:5 Unresolved reference: total',
        'e: /src/app/Main.kt: (3, 5): Type mismatch: inferred type is String but Int was expected',
      ],
      counterExamples: ['e: the base of the natural logarithm'],
    },
    {
      id: 'build/terraform-summary',
      kind: 'summary',
      // What a plan or an apply would change, and what it did.
      pattern: /^(?:Plan: \d+ to add, \d+ to change, \d+ to destroy\.|Apply complete! Resources: \d+ added)/,
      marks: ['Plan: \\d', 'Apply complete'],
      examples: [
        'Plan: 3 to add, 1 to change, 2 to destroy.',
        'Apply complete! Resources: 3 added, 0 changed, 0 destroyed.',
      ],
      counterExamples: ['Plan: review the diff first'],
    },
  ],
};
