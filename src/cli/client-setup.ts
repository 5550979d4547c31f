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

const indent = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => (line ? `    ${line}` : ''))
    .join('\n');

/**
 * How to point each client at a proxy at `proxyUrl`, as the startup banner and `--help` print
 * it; the README gives the same lines for the default port.
 *
 * @example
 * process.stdout.write(clientSetup('http://127.0.0.1:4747'));
 */
export function clientSetup(proxyUrl: string): string {
  return `Claude Code:
    ANTHROPIC_BASE_URL=${proxyUrl} claude
    claude mcp add spillway -- spillway mcp
Codex, at the top of ~/.codex/config.toml:
${indent(codexProviderToml(proxyUrl))}

${indent(CODEX_MCP_TOML)}
OpenAI SDKs:
    OPENAI_BASE_URL=${proxyUrl}/v1
Gemini CLI (with GEMINI_API_KEY set), and in ~/.gemini/settings.json:
    GOOGLE_GEMINI_BASE_URL=${proxyUrl} gemini
${indent(GEMINI_SETTINGS_JSON)}
`;
}
