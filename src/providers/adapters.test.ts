import { describe, expect, it } from 'vitest';
import { anthropicAdapter, geminiAdapter, openaiChatAdapter, openaiResponsesAdapter } from './index.js';

const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } };

describe('request adapters', () => {
  it('Anthropic: finds tool results with names, error flags and expand outputs; writes back in place; keeps the rest', () => {
    const body = {
      model: 'claude-sonnet-4-5',
      unknown_field: { keep: true },
      system: 'sys',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'ok' },
            { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test' } },
            { type: 'tool_use', id: 't2', name: 'mcp__spillway__spillway_expand', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: 'out',
              is_error: true,
              cache_control: { type: 'ephemeral' },
            },
            { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'expanded' }, image] },
          ],
        },
      ],
    };
    const view = anthropicAdapter.view(body);
    expect(view?.results).toEqual([
      {
        id: 't1',
        tool: 'Bash',
        content: 'out',
        position: 2,
        isError: true,
        input: { command: 'npm test' },
        said: 'hi\nok',
      },
      {
        id: 't2',
        tool: 'mcp__spillway__spillway_expand',
        content: [{ type: 'text', text: 'expanded' }, image],
        position: 2,
        input: {},
        said: 'hi\nok',
        isExpandOutput: true,
      },
    ]);
    expect(view?.messageCount).toBe(3);
    view?.apply(new Map([[0, 'short']]));
    expect(body.messages[2]?.content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 't1',
      content: 'short',
      is_error: true,
      cache_control: { type: 'ephemeral' },
    });
    expect(body.unknown_field).toEqual({ keep: true });
    expect(anthropicAdapter.view({ no: 'messages' })).toBeNull();
  });

  it('OpenAI Chat: tool messages named from tool_calls', () => {
    const body = {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 's' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'file text', name: 'extra' },
      ],
    };
    const view = openaiChatAdapter.view(body);
    expect(view?.results).toEqual([
      { id: 'c1', tool: 'read_file', content: 'file text', position: 2, input: {} },
    ]);
    view?.apply(new Map([[0, [{ type: 'text', text: 'short' }]]]));
    expect(body.messages[2]).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: [{ type: 'text', text: 'short' }],
      name: 'extra',
    });
  });

  it('OpenAI Responses: function and custom tool outputs; input_text parts map to text blocks and back; rich parts untouched', () => {
    const file = { type: 'input_image', image_url: 'data:image/png;base64,AAAA' };
    const body = {
      model: 'gpt-5',
      previous_response_id: 'resp_1',
      input: [
        { type: 'function_call', call_id: 'f1', name: 'shell', arguments: '{"command":["bash","-lc","ls"]}' },
        { type: 'function_call_output', call_id: 'f1', output: 'done' },
        { type: 'custom_tool_call', call_id: 'k1', name: 'apply_patch', input: '' },
        {
          type: 'custom_tool_call_output',
          call_id: 'k1',
          output: [{ type: 'input_text', text: 'patched' }, file],
        },
      ],
    };
    const view = openaiResponsesAdapter.view(body);
    expect(view?.continuesServerState).toBe(true);
    expect(view?.results).toEqual([
      { id: 'f1', tool: 'shell', content: 'done', position: 1, input: { command: ['bash', '-lc', 'ls'] } },
      {
        id: 'k1',
        tool: 'apply_patch',
        content: [{ type: 'text', text: 'patched' }, file],
        position: 3,
        input: '',
      },
    ]);
    view?.apply(new Map([[1, [{ type: 'text', text: 'p' }, file]]]));
    expect(body.input[3]).toEqual({
      type: 'custom_tool_call_output',
      call_id: 'k1',
      output: [{ type: 'input_text', text: 'p' }, file],
    });
  });

  it('Gemini: functionResponse outputs named from functionCall parts; other parts and fields untouched', () => {
    const image = { inlineData: { mimeType: 'image/png', data: 'AAAA' } };
    const body = {
      systemInstruction: { parts: [{ text: 'be brief' }] },
      generationConfig: { maxOutputTokens: 1000, thinkingConfig: { thinkingBudget: 10 } },
      contents: [
        { role: 'user', parts: [{ text: 'build it' }, image] },
        {
          role: 'model',
          parts: [
            {
              functionCall: { id: 'c1', name: 'run_shell_command', args: { command: 'make' } },
              thoughtSignature: 'sig',
            },
            { functionCall: { name: 'mcp_spillway_spillway_expand', args: { id: 'x' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 'c1',
                name: 'run_shell_command',
                response: { output: 'make: ok' },
                extra: 1,
              },
            },
            {
              functionResponse: {
                name: 'mcp_spillway_spillway_expand',
                response: { content: [{ type: 'text', text: 'x' }] },
              },
            },
          ],
        },
      ],
    };
    const view = geminiAdapter.view(body);
    expect(view?.messageCount).toBe(3);
    expect(view?.results).toEqual([
      {
        id: 'c1',
        tool: 'run_shell_command',
        content: 'make: ok',
        position: 2,
        input: { command: 'make' },
        said: 'build it',
      },
      {
        id: 'mcp_spillway_spillway_expand',
        tool: 'mcp_spillway_spillway_expand',
        // Another shape keeps its JSON, and is shrunk as JSON.
        content: '{"content":[{"type":"text","text":"x"}]}',
        position: 2,
        input: { id: 'x' },
        said: 'build it',
        isExpandOutput: true,
      },
    ]);
    const before = JSON.parse(JSON.stringify(body));
    const edits = view?.apply(
      new Map([
        [0, 'short'],
        [1, 'js'],
      ]),
    );
    expect(edits).toHaveLength(2);
    expect(body.contents[2]?.parts[0]).toEqual({
      functionResponse: { id: 'c1', name: 'run_shell_command', response: { output: 'short' }, extra: 1 },
    });
    expect(body.contents[2]?.parts[1]).toEqual({
      functionResponse: { name: 'mcp_spillway_spillway_expand', response: { output: 'js' } },
    });
    // Everything else is as it was.
    expect({ ...body, contents: body.contents.slice(0, 2) }).toEqual({
      ...before,
      contents: before.contents.slice(0, 2),
    });
    expect(geminiAdapter.view({ messages: [] })).toBeNull();
  });
});

describe('the words said before a call', () => {
  const said = (view: { results: { said?: string }[] } | null) => view?.results.map((r) => r.said);
  const reminder = '<system-reminder>The file src/other.ts changed.</system-reminder>';

  it("each result carries the user's and the assistant's latest words before its call, whatever follows", () => {
    const messages = [
      {
        role: 'user',
        content: [
          { type: 'text', text: reminder },
          { type: 'text', text: 'why does test_charge fail?' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'secret plan' },
          { type: 'text', text: 'Running the payments suite.' },
          { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'pytest' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'out' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'Read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'out' }] },
    ];
    const first = 'why does test_charge fail?\nRunning the payments suite.';
    expect(said(anthropicAdapter.view({ messages }))).toEqual([first, first]);
    // Later words do not change what an earlier call carries (its collapse stays the same).
    const later = [...messages, { role: 'user', content: 'now look at refund_total' }];
    expect(said(anthropicAdapter.view({ messages: later }))).toEqual([first, first]);
  });

  it('reads the same from OpenAI Chat, Responses and Gemini bodies', () => {
    const chat = openaiChatAdapter.view({
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'fix parse_config' },
        {
          role: 'assistant',
          content: 'Reading it.',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'x' },
      ],
    });
    expect(said(chat)).toEqual(['fix parse_config\nReading it.']);
    const responses = openaiResponsesAdapter.view({
      input: [
        {
          role: 'user',
          content: [{ type: 'input_text', text: '<environment_context>cwd</environment_context>' }],
        },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix parse_config' }] },
        { type: 'function_call', call_id: 'f1', name: 'shell', arguments: '{}' },
        { type: 'function_call_output', call_id: 'f1', output: 'x' },
      ],
    });
    expect(said(responses)).toEqual(['fix parse_config']);
    const gemini = geminiAdapter.view({
      contents: [
        { role: 'user', parts: [{ text: 'fix parse_config' }] },
        {
          role: 'model',
          parts: [
            { text: 'thinking it over', thought: true },
            { functionCall: { name: 'read_file', args: {} } },
          ],
        },
        { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { output: 'x' } } }] },
      ],
    });
    expect(said(gemini)).toEqual(['fix parse_config']);
  });
});

describe('conversation identity', () => {
  it("takes the client's own ids from the body, and a seed that annotations do not move", () => {
    const first = {
      role: 'user',
      content: [{ type: 'text', text: 'fix the build', cache_control: { type: 'ephemeral' } }],
    };
    const later = { role: 'user', content: [{ type: 'text', text: 'fix the build' }] };
    const turn1 = anthropicAdapter.view({
      system: 's',
      metadata: { user_id: 'user_ab12_account_cd34_session_0f3e-77' },
      messages: [first],
    });
    const turn2 = anthropicAdapter.view({ system: 's', messages: [later] });
    expect(turn1?.clientSession).toBe('session_0f3e-77');
    expect(turn1?.sessionSeed).toBe(turn2?.sessionSeed);
    expect(openaiResponsesAdapter.view({ input: [], prompt_cache_key: 'thread-42' })?.clientSession).toBe(
      'thread-42',
    );
    expect(openaiChatAdapter.view({ messages: [], user: 'u-7' })?.clientSession).toBe('u-7');
    expect(openaiChatAdapter.view({ messages: [] })?.clientSession).toBeUndefined();
  });
});
