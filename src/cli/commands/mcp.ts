import { SpillwayError } from '../../errors.js';
import { serveStdio } from '../../mcp/server/index.js';
import { parseCommandArgs } from '../args.js';
import { CODEX_MCP_TOML } from '../client-setup.js';
import { helpText } from '../help.js';
import { type CliIo, write } from '../io.js';
import { STORE_HELP, STORE_OPTIONS, withStore } from '../store-option.js';
import { version } from '../version.js';

export const MCP_HELP = helpText(`usage: spillway mcp [--dir D | --store URL]

Serves the spillway_expand tool over MCP on standard input and output, reading the same
store as the proxy and "spillway cap", so a model can recall any output spillway shortened.

Register it with Claude Code:   claude mcp add spillway -- spillway mcp
With Codex, in ~/.codex/config.toml:
${CODEX_MCP_TOML}
${STORE_HELP}
  -h, --help     show this help
`);

export async function mcpCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('mcp', argv, { ...STORE_OPTIONS });
  if (values.help) {
    await write(io.stdout, MCP_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new SpillwayError('SPILLWAY_USAGE', `mcp takes no arguments, got "${positionals.join(' ')}"`);
  await withStore(values, io.env, (store) => serveStdio(store, version()));
  return 0;
}
