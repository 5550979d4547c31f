import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPUS_DIR, CORPUS_MISSING, corpusAvailable } from '../../test-support/corpus.js';
import { readTranscript } from './index.js';

const corpus = (rel: string) => readFileSync(join(CORPUS_DIR, rel), 'utf8');

const REAL: [string, string, number][] = [
  ['claude-code', 'marot__spotter/test/fixtures/transcripts/4d5611e5-241a-462a-8d15-5122611a9569.jsonl', 150],
  [
    'codex',
    'codemie-ai__codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl',
    38,
  ],
  ['swe-agent', 'princeton-nlp__SWE-agent/trajectories/demonstrations/ctf/rev/rock.traj', 12],
  [
    'swe-agent',
    'princeton-nlp__SWE-agent/trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source/marshmallow-code__marshmallow-1867.traj',
    13,
  ],
  ['mini-swe-agent', 'SWE-agent__mini-swe-agent/tests/test_data/github_issue.traj.json', 10],
  ['openhands', 'All-Hands-AI__OpenHands/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl', 105],
];

describe.skipIf(!corpusAvailable)('transcript readers on real corpus files', () => {
  for (const [format, rel, results] of REAL) {
    it(`${format}: ${rel.split('/').at(-1)}`, () => {
      const read = readTranscript(corpus(rel), rel);
      expect(read.format).toBe(format);
      const all = read.conversations.flatMap((c) => c.turns.flat());
      expect(all).toHaveLength(results);
      expect(all.every((r) => r.id && typeof r.tool === 'string')).toBe(true);
      expect(all.filter((r) => r.tool).length).toBeGreaterThan(results / 2);
    });
  }

  it('claude-code: names tools from tool_use blocks and keeps error flags', () => {
    const read = readTranscript(corpus(REAL[0]?.[1] as string), 'x');
    const tools = new Set(read.conversations[0]?.turns.flat().map((r) => r.tool));
    expect(tools.has('Bash') || tools.has('Read')).toBe(true);
  });
});
if (!corpusAvailable) describe('readers', () => it.skip(CORPUS_MISSING, () => {}));

describe('claude-code model', () => {
  it('takes the real model, not a placeholder such as <synthetic> that comes after it', () => {
    const lines = [
      { type: 'user', message: { role: 'user', content: 'go' } },
      {
        type: 'assistant',
        message: {
          role: 'assistant',
          model: 'claude-opus-4-7',
          content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }],
        },
      },
      {
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
      },
      {
        type: 'assistant',
        message: {
          role: 'assistant',
          model: '<synthetic>',
          content: [{ type: 'text', text: 'No response requested.' }],
        },
      },
    ];
    const read = readTranscript(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`, 'x.jsonl');
    expect(read.format).toBe('claude-code');
    expect(read.conversations[0]?.model).toBe('claude-opus-4-7');
  });
});

describe('transcript readers on malformed input', () => {
  const cases: [string, string, RegExp][] = [
    [
      'claude-code',
      '{"type":"user","message":{"content":[]}}\n{not json}\n{"type":"user","message":{"content":[]}}\n',
      /line 2 is not JSON/,
    ],
    [
      'codex',
      '{"type":"session_meta","payload":{}}\n{"type":"response_item","payload":\n{"a":1}\n',
      /line 2 is not JSON/,
    ],
    ['openhands', '{"history":[]}\n{"instance_id":"x"}\n', /instance 2 has no "history" list/],
    ['swe-agent', '{"trajectory": "not a list"}', /not a SWE-agent trajectory/],
    ['mini-swe-agent', '[{"content":"no role"}]', /not a mini-swe-agent trajectory/],
    ['anthropic', '{"messages": "nope"}', /not an Anthropic Messages request body/],
    ['openai-chat', '[1,2]', /not an OpenAI Chat Completions request body/],
    ['openai-responses', '{"input": 3}', /not an OpenAI Responses request body/],
  ];
  for (const [format, text, message] of cases) {
    it(`${format} names what is wrong`, () => {
      expect(() => readTranscript(text, 'bad-file', format)).toThrow(message);
    });
  }

  it('drops a torn last line (a crash mid-write) but not a corrupt middle one', () => {
    const ok =
      '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash"}]}}\n{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"out"}]}}\n{"type":"user","mess';
    expect(
      readTranscript(ok, 'torn.jsonl')
        .conversations[0]?.turns.flat()
        .map((r) => r.content),
    ).toEqual(['out']);
  });

  it('says what it expected when no format matches, and rejects an unknown --format', () => {
    expect(() => readTranscript('hello world', 'notes.txt')).toThrow(
      /notes\.txt: not a transcript spillway can read \((it starts: [^)]*|it does not start like JSON)\); expected one of:\n {2}- codex: [\s\S]*- openhands: [\s\S]*--format/,
    );
    expect(() => readTranscript('{}', 'x', 'word')).toThrow(
      /unknown transcript format "word"; formats: codex, claude-code/,
    );
  });
});

describe('plain API request bodies', () => {
  it('reads Anthropic, OpenAI Chat and OpenAI Responses bodies, one turn per message', () => {
    const anthropic = {
      model: 'claude-sonnet-4-5',
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'a', name: 'Read', input: {} },
            { type: 'tool_use', id: 'b', name: 'Bash', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'a', content: '1' },
            { type: 'tool_result', tool_use_id: 'b', content: '2' },
          ],
        },
      ],
    };
    const read = readTranscript(JSON.stringify(anthropic), 'req.json');
    expect(read.format).toBe('anthropic');
    expect(read.conversations[0]).toMatchObject({
      model: 'claude-sonnet-4-5',
      turns: [
        [
          { id: 'a', tool: 'Read', content: '1' },
          { id: 'b', tool: 'Bash', content: '2' },
        ],
      ],
    });
    const chat = {
      messages: [
        { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'sh' } }] },
        { role: 'tool', tool_call_id: 'c', content: 'x' },
      ],
    };
    expect(readTranscript(JSON.stringify(chat), 'c.json').format).toBe('openai-chat');
    const responses = {
      input: [
        { type: 'function_call', call_id: 'r', name: 'sh' },
        { type: 'function_call_output', call_id: 'r', output: 'y' },
      ],
    };
    expect(readTranscript(JSON.stringify(responses), 'r.json')).toMatchObject({
      format: 'openai-responses',
      conversations: [{ turns: [[{ id: 'r', tool: 'sh', content: 'y' }]] }],
    });
  });
});
