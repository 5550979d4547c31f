import { spillwayCommand, spillwayShell } from '../clients/index.js';

/**
 * Codex's provider block for `~/.codex/config.toml`. Codex ignores `OPENAI_BASE_URL`; a custom
 * provider with `wire_api = "responses"` sends plain HTTP (no WebSocket attempt) to spillway.
 * `model_provider` must sit above the file's first table.
 *
 * @example
 * codexProviderToml('http://127.0.0.1:4747'); // 'model_provider = "spillway"\n\n[model_providers.spillway]\n...'
 */
export function codexProviderToml(proxyUrl: string): string {
  return `model_provider = "spillway"

[model_providers.spillway]
name = "spillway"
base_url = "${proxyUrl}/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
`;
}

/** Codex's MCP block that offers `spillway_expand` (spillway on the PATH). */
export const CODEX_MCP_TOML = `[mcp_servers.spillway]
command = "spillway"
args = ["mcp"]
`;

/**
 * Gemini CLI's `~/.gemini/settings.json` for spillway: an API key (the proxy forwards it) and
 * `spillway_expand` as an MCP server. Merge it into an existing file.
 */
export const GEMINI_SETTINGS_JSON = `{
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "mcpServers": { "spillway": { "command": "spillway", "args": ["mcp"] } }
}
`;

/**
 * How to point clients at a proxy at `proxyUrl`, as the startup banner and `--help` print it:
 * `spillway setup` by the absolute command (it works before `npm link`), the SDKs' base URLs,
 * and where the lines for setting a client up by hand are.
 *
 * @example
 * process.stdout.write(clientSetup('http://127.0.0.1:4747'));
 */
export function clientSetup(proxyUrl: string): string {
  const setup = spillwayShell(spillwayCommand(), ['setup']);
  return `Claude Code, Codex, Gemini CLI (hooks that hand spillway whole outputs, recall, this proxy):
    ${setup} claude --proxy ${proxyUrl}     (or codex, gemini; --undo reverts)
OpenAI and Anthropic SDKs:
    OPENAI_BASE_URL=${proxyUrl}/v1    ANTHROPIC_BASE_URL=${proxyUrl}
Gemini API clients:
    GOOGLE_GEMINI_BASE_URL=${proxyUrl}
By hand, for any client: docs/clients.md
`;
}
