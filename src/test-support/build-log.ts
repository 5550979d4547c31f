/**
 * A 650 KB build log (9,000 compiler lines) whose one error is in its middle: the integrations'
 * and the root collapse's common case.
 *
 * @example
 * const { text, error } = buildLog(); // text.length > 650_000; text.includes(error)
 */
export function buildLog(): { text: string; error: string } {
  const lines = Array.from(
    { length: 9000 },
    (_, i) =>
      `[${String(i).padStart(5, '0')}] CC src/module_${i % 97}/file_${i}.c -O2 -Wall -fPIC -o build/obj/${i}.o`,
  );
  const error = "src/module_42/file_4500.c:88:13: error: use of undeclared identifier 'buffer_len'";
  lines[4500] = error;
  return { text: lines.join('\n'), error };
}
