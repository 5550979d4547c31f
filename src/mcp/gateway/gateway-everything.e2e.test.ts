import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { pinnedBin } from '../../test-support/client-install.js';

// The reference server of every MCP feature (@modelcontextprotocol/server-everything, pinned
// and installed by `npm run clients`), called directly and through the gateway: what each
// message type gives must be the same.
const everything = pinnedBin('@modelcontextprotocol/server-everything');
const missing = 'missing' in everything ? everything.missing : undefined;
const CLI = resolve(import.meta.dirname, '../../cli.ts');

/** A client that answers sampling and elicitation, and notes progress and log messages. */
async function connect(args: { command: string; args: string[] }) {
  const client = new Client(
    { name: 'test', version: '1' },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  const logs: unknown[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({
    model: 'scripted',
    role: 'assistant' as const,
    content: { type: 'text' as const, text: `sampled: ${JSON.stringify(req.params.messages[0]?.content)}` },
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept' as const,
    content: { name: 'Ada' },
  }));
  client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    async (n) => void logs.push(n.params.level),
  );
  await client.connect(new StdioClientTransport({ ...args, stderr: 'pipe' }));
  return { client, logs };
}

/** Every kind of message the SDK defines, as one session sends them; the answers, in order. */
async function session(client: Client): Promise<unknown[]> {
  const out: unknown[] = [];
  const progress: unknown[] = [];
  out.push(await client.ping());
  out.push((await client.listTools()).tools.filter((t) => t.name !== 'spillway_expand'));
  for (const [name, args] of [
    ['echo', { message: 'hello' }],
    ['get-sum', { a: 2, b: 3 }],
    ['get-tiny-image', {}],
    ['get-annotated-message', { messageType: 'error', includeImage: true }],
    ['get-structured-content', { location: 'Chicago' }],
    ['get-resource-links', { count: 2 }],
    ['get-resource-reference', { resourceType: 'Text', resourceId: 2 }],
    ['trigger-sampling-request', { prompt: 'say hi', maxTokens: 5 }],
    ['trigger-elicitation-request', {}],
  ] as const)
    out.push(await client.callTool({ name, arguments: args }));
  out.push(
    await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
      undefined,
      { onprogress: (p) => void progress.push(p) },
    ),
  );
  // The last step's notification may arrive after the answer, on either path: the steps before it.
  out.push(progress.slice(0, 2));
  // Cancellation: the request is abandoned on both sides.
  const abort = new AbortController();
  const cancelled = client
    .callTool({ name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 5 } }, undefined, {
      signal: abort.signal,
    })
    .then(
      () => 'answered',
      (err: Error) => `rejected: ${err.name}`,
    );
  setTimeout(() => abort.abort(), 200);
  out.push(await cancelled);
  out.push(await client.listResources());
  out.push(await client.listResourceTemplates());
  out.push(await client.readResource({ uri: 'demo://resource/static/document/architecture.md' }));
  out.push(await client.readResource({ uri: 'demo://resource/dynamic/text/3' }));
  out.push(await client.subscribeResource({ uri: 'demo://resource/dynamic/text/3' }));
  out.push(await client.unsubscribeResource({ uri: 'demo://resource/dynamic/text/3' }));
  out.push(await client.listPrompts());
  out.push(await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lyon' } }));
  out.push(
    await client.complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'En' },
    }),
  );
  out.push(await client.setLoggingLevel('debug'));
  return out;
}

describe.skipIf(missing)(
  `the gateway in front of a real MCP server${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    it('passes every message type the SDK defines through unchanged (tools, progress, cancellation, sampling, elicitation, resources, prompts, completion, logging)', async () => {
      const bin = (everything as { path: string }).path;
      const direct = await connect({ command: bin, args: ['stdio'] });
      const dir = mkdtempSync(join(tmpdir(), 'sw-gateway-'));
      const gated = await connect({
        command: process.execPath,
        args: ['--import', 'tsx', CLI, 'gateway', '--dir', dir, '--', bin, 'stdio'],
      });
      try {
        // The server stamps its dynamic resources with the time they were made.
        const untimed = (answers: unknown[]) =>
          JSON.parse(JSON.stringify(answers).replace(/\d{1,2}:\d\d:\d\d [AP]M/g, 'TIME')) as unknown[];
        const [a, b] = [untimed(await session(direct.client)), untimed(await session(gated.client))];
        expect(b).toEqual(a);
        expect(a).toHaveLength(24);
        // The gateway adds its tool, after the server's own.
        expect((await gated.client.listTools()).tools.at(-1)?.name).toBe('spillway_expand');
        expect(gated.client.getServerCapabilities()).toEqual(direct.client.getServerCapabilities());
      } finally {
        await direct.client.close();
        await gated.client.close();
      }
    });
  },
);
