/**
 * spillway around an MCP client session: a server's long tool results capped in process, the
 * whole recallable through spillway_expand, as `spillway gateway` does without a second process.
 *
 *   npx tsx examples/mcp-client.ts TOOL [JSON_ARGS] -- COMMAND [ARGS...]
 *   npx tsx examples/mcp-client.ts read_text_file '{"path":"/var/log/dpkg.log"}' -- npx -y @modelcontextprotocol/server-filesystem /var/log
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { capMcpClient } from 'spillway/mcp-client';

const dash = process.argv.indexOf('--');
const [tool, args = '{}'] = process.argv.slice(2, dash < 0 ? undefined : dash);
const [command, ...commandArgs] = dash < 0 ? [] : process.argv.slice(dash + 1);
if (!tool || !command) {
  console.error('usage: npx tsx examples/mcp-client.ts TOOL [JSON_ARGS] -- COMMAND [ARGS...]');
  process.exit(2);
}

const client = capMcpClient(new Client({ name: 'spillway-example', version: '1.0.0' }), { tokens: 1800 });
await client.connect(new StdioClientTransport({ command, args: commandArgs }));
const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
for (const block of result.content as { type: string; text?: string }[])
  if (block.type === 'text') console.log(block.text);
// A marker names the id; the model (or you) recalls what it left out by grep, range or page.
const id = /<<sw:([\w-]+)>>/.exec(JSON.stringify(result.content))?.[1];
if (id) {
  const hits = await client.callTool({ name: 'spillway_expand', arguments: { id, grep: 'error|fail' } });
  console.log(`\n--- spillway_expand grep error|fail:\n${(hits.content as { text: string }[])[0]?.text}`);
}
await client.close();
