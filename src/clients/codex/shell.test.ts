import { describe, expect, it } from 'vitest';
import { codexShellFor } from './shell.js';

describe('codexShellFor', () => {
  it('is the shell Codex runs commands in for a login shell, as codex-rs picks it on Linux', () => {
    expect(codexShellFor('/usr/bin/zsh')).toBe('zsh');
    expect(codexShellFor('/bin/sh')).toBe('sh');
    expect(codexShellFor('/bin/bash')).toBe('bash');
    // fish, nologin or none: Codex falls back to bash, which reads the capture.
    for (const other of ['/usr/bin/fish', '/usr/sbin/nologin', '']) expect(codexShellFor(other)).toBe('bash');
  });
});
