/**
 * A 650 KB build log (6,000 compiler lines) with one error at line 3,100: what the MCP fixture's
 * build_log tool returns, and the integrations' and the root collapse's common case.
 *
 * @example
 * const { text, error } = buildLog(); // text.length > 650_000; text.includes(error)
 */
export function buildLog(): { text: string; error: string } {
  const error = "src/pay.c:88:3: error: 'amount' undeclared (first use in this function)";
  const text = Array.from({ length: 6000 }, (_, i) =>
    i === 3099
      ? error
      : `[${String(i).padStart(4, '0')}] cc -O2 -c src/module_${i}.c -o build/module_${i}.o ${'·'.repeat(60)}`,
  ).join('\n');
  return { text, error };
}
