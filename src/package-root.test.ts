import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from './package-root.js';

describe('packageRoot', () => {
  it("finds spillway's own package.json from the sources", () => {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { name: string };
    expect(pkg.name).toBe('spillway');
  });
});
