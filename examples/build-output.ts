/** What the examples' build tool prints: 9,000 compiler lines, one error in the middle. */
export function buildOutput(): string {
  return Array.from({ length: 9000 }, (_, i) =>
    i === 4500
      ? "src/net/buffer.c:88:13: error: use of undeclared identifier 'buffer_len'"
      : `[${i}] CC src/module_${i % 97}/file_${i}.c -O2 -Wall -o build/obj/${i}.o`,
  ).join('\n');
}
