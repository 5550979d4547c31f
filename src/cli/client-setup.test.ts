import { describe, expect, it } from 'vitest';
import { DOC_URL, docBlock, docLine } from '../test-support/real-clients.js';
import { CODEX_MCP_TOML, clientSetup, codexProviderToml, GEMINI_SETTINGS_JSON } from './client-setup.js';

describe('client setup lines', () => {
  it('the banner and --help give the lines of docs/clients.md (the ones the real-client tests run)', () => {
    expect(codexProviderToml(DOC_URL)).toBe(docBlock('toml', '[model_providers.spillway]'));
    expect(CODEX_MCP_TOML).toBe(docBlock('toml', '[mcp_servers.spillway]'));
    expect(GEMINI_SETTINGS_JSON).toBe(docBlock('json', '"mcpServers"'));
    expect(docLine('ANTHROPIC_BASE_URL=')).toBe(`ANTHROPIC_BASE_URL=${DOC_URL} claude`);
    expect(docLine('GOOGLE_GEMINI_BASE_URL=')).toBe(`GOOGLE_GEMINI_BASE_URL=${DOC_URL} gemini`);
  });

  it('names the proxy it was given, and spillway setup by a command that needs no PATH', () => {
    const banner = clientSetup('http://127.0.0.1:9000');
    expect(banner).toMatch(/^ {4}\S+node\S* \S+\/cli\.js setup claude --proxy http:\/\/127\.0\.0\.1:9000 /m);
    expect(banner).toContain('OPENAI_BASE_URL=http://127.0.0.1:9000/v1');
    expect(banner).not.toContain('4747');
  });
});
