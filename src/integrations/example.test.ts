import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedModel, startScriptedModel } from '../test-support/scripted-model.js';

const ROOT = join(import.meta.dirname, '../..');
const BUILT = existsSync(join(ROOT, 'dist/integrations/ai-sdk.js'));
if (!BUILT) console.warn('skipping the examples/ test: dist/ is not built (npm run build)');

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

// Each agent example, run as a user runs it, against the scripted model through the endpoint
// variable its provider reads.
const AGENTS = [
  { file: 'ai-sdk.ts', env: (url: string) => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${url}/v1` }) },
  {
    file: 'openai-agents.ts',
    env: (url: string) => ({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${url}/v1` }),
  },
  {
    file: 'langchain.ts',
    env: (url: string) => ({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_API_URL: url }),
  },
];

describe.skipIf(!BUILT)('the agent examples', () => {
  for (const example of AGENTS)
    it(`examples/${example.file} runs with spillway from the package, the model seeing the error`, async () => {
      model = await startScriptedModel((turn) => {
        if (!turn.lastOutput) return { kind: 'call', callId: 'call_build', name: 'build', input: {} };
        const hasError = turn.lastOutput.text.includes("undeclared identifier 'buffer_len'");
        return { kind: 'answer', text: hasError ? 'buffer_len is undeclared' : 'no error seen' };
      });
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'examples', example.file)],
        { cwd: ROOT, env: { ...process.env, ...example.env(model.url) } },
      );
      expect(stdout.trim()).toBe('buffer_len is undeclared');
      const sent = model.seen.at(-1)?.body.toString('utf8') ?? '';
      expect(sent.length).toBeLessThan(20_000);
    }, 60_000);
});

describe.skipIf(!BUILT)('examples/mcp-client.ts', () => {
  it("caps a real stdio server's 650 KB result and greps its error back", async () => {
    const fixture = join(ROOT, 'src/test-support/mcp-fixture-server.ts');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'examples/mcp-client.ts'),
        'build_log',
        '--',
        process.execPath,
        '--import',
        'tsx',
        fixture,
      ],
      { cwd: ROOT, maxBuffer: 4 * 1024 * 1024 },
    );
    const [shown, recalled] = stdout.split('--- spillway_expand grep error|fail:');
    expect(shown?.length).toBeLessThan(12_000);
    expect(shown).toContain("error: 'amount' undeclared");
    expect(recalled).toContain("error: 'amount' undeclared");
  }, 60_000);
});
