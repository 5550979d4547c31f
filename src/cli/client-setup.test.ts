import { describe, expect, it } from 'vitest';
import { README_URL, readmeBlock, readmeLine } from '../test-support/real-clients.js';
import { CODEX_MCP_TOML, clientSetup, codexProviderToml, GEMINI_SETTINGS_JSON } from './client-setup.js';

describe('client setup lines', () => {
  it('the banner and --help give the README lines (the ones the real-client tests run)', () => {
    expect(codexProviderToml(README_URL)).toBe(readmeBlock('toml', '[model_providers.spillway]'));
    expect(CODEX_MCP_TOML).toBe(readmeBlock('toml', '[mcp_servers.spillway]'));
    const banner = clientSetup(README_URL);
    expect(banner).toContain(`    ${readmeLine('ANTHROPIC_BASE_URL=')}\n`);
    expect(banner).toContain(`    ${readmeLine('claude mcp add spillway -- spillway mcp')}\n`);
    expect(banner).toContain(`    base_url = "${README_URL}/v1"\n`);
    expect(GEMINI_SETTINGS_JSON).toBe(readmeBlock('json', '"mcpServers"'));
    expect(banner).toContain(`    ${readmeLine('GOOGLE_GEMINI_BASE_URL=')}\n`);
  });

  it('names the proxy it was given', () => {
    const banner = clientSetup('http://127.0.0.1:9000');
    expect(banner).toContain('ANTHROPIC_BASE_URL=http://127.0.0.1:9000 claude');
    expect(banner).toContain('base_url = "http://127.0.0.1:9000/v1"');
    expect(banner).not.toContain('4747');
  });
});
