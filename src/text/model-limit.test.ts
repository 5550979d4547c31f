import { describe, expect, it } from 'vitest';
import { formatTokenCount } from './format-token-count.js';
import { lookupModelLimit, normaliseModelName } from './model-limit.js';
import { DEFAULT_MODEL_WINDOW, MODEL_WINDOWS } from './model-windows.js';

describe('lookupModelLimit', () => {
  it('knows current models of every major provider', () => {
    const cases: [string, number][] = [
      ['claude-sonnet-4-5', 200_000],
      ['claude-opus-4-6', 200_000],
      ['gpt-4o', 128_000],
      ['gpt-5', 400_000],
      ['gemini-2.5-pro', 1_048_576],
      ['grok-4', 256_000],
      ['deepseek-chat', 128_000],
      ['qwen3-coder', 262_144],
      ['mistral-large', 131_072],
      ['llama-3-3', 131_072],
    ];
    for (const [name, limit] of cases)
      expect(lookupModelLimit(name), name).toEqual({ limit, found: true, matched: name });
  });

  it('tolerates provider prefixes, Bedrock and Vertex ids, router suffixes and dates', () => {
    const cases: [string, string][] = [
      ['anthropic/claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
      ['anthropic/claude-sonnet-4.5', 'claude-sonnet-4-5'],
      ['us.anthropic.claude-3-5-sonnet-20240620-v1:0', 'claude-3-5-sonnet'],
      ['anthropic.claude-3-haiku-20240307-v1:0', 'claude-3-haiku'],
      ['claude-3-5-sonnet@20240620', 'claude-3-5-sonnet'],
      ['openai/gpt-4o-2024-08-06', 'gpt-4o'],
      ['gpt-4.1-mini-2025-04-14', 'gpt-4.1-mini'],
      ['GPT-4o-Mini', 'gpt-4o-mini'],
      ['gpt-4o-mini-search-preview', 'gpt-4o-mini'],
      ['o3-mini-high', 'o3-mini'],
      ['models/gemini-2.5-flash', 'gemini-2.5-flash'],
      ['meta-llama/Llama-3.3-70B-Instruct', 'llama-3-3'],
      ['meta.llama3-1-70b-instruct-v1:0', 'llama-3-1'],
      ['qwen/qwen3-coder:free', 'qwen3-coder'],
      ['mistral-large-latest', 'mistral-large'],
      ['grok-4-0709', 'grok-4'],
    ];
    for (const [name, matched] of cases) {
      const got = lookupModelLimit(name);
      expect(got.found, name).toBe(true);
      expect(got.matched, name).toBe(matched);
      expect(got.limit).toBe(MODEL_WINDOWS[matched]);
    }
  });

  it('does not confuse a model with a shorter name it merely starts with', () => {
    expect(lookupModelLimit('gpt-4o').limit).toBe(128_000);
    expect(lookupModelLimit('gpt-4').limit).toBe(8_192);
    expect(lookupModelLimit('gpt-4.1').limit).toBe(1_047_576);
  });

  it('gives unknown and local models the conservative default with found: false', () => {
    for (const name of ['my-finetune', '', 'gpt']) {
      const got = lookupModelLimit(name);
      expect(got, name).toEqual({ limit: DEFAULT_MODEL_WINDOW, found: false });
    }
  });

  it("gives Claude's 1M window only to a request that opts in, on a model that offers it", () => {
    expect(lookupModelLimit('claude-sonnet-4-5[1m]')).toMatchObject({ limit: 1_000_000, extended: true });
    expect(lookupModelLimit('claude-opus-4-7')).toMatchObject({ limit: 200_000, found: true });
    expect(lookupModelLimit('claude-opus-4-7', { extended: true })).toMatchObject({ limit: 1_000_000 });
    expect(lookupModelLimit('claude-sonnet-4-6-20260101', { extended: true }).limit).toBe(1_000_000);
    // Models without the larger window keep theirs whatever the request says.
    expect(lookupModelLimit('claude-3-5-haiku', { extended: true })).toEqual({
      limit: 200_000,
      found: true,
      matched: 'claude-3-5-haiku',
    });
    expect(lookupModelLimit('claude-3-5-haiku[1m]').limit).toBe(200_000);
  });

  it('normalises names without losing the family', () => {
    expect(normaliseModelName(' Anthropic/Claude-3.7-Sonnet ')).toBe('claude-3-7-sonnet');
  });
});

describe('formatTokenCount', () => {
  it('prints counts for people', () => {
    expect(formatTokenCount(0)).toBe('0');
    expect(formatTokenCount(999)).toBe('999');
    expect(formatTokenCount(1234)).toBe('1.2K');
    expect(formatTokenCount(3_400_000)).toBe('3.4M');
    expect(formatTokenCount(999_999)).toBe('1.0M');
    expect(formatTokenCount(2_000_000_000)).toBe('2.0B');
    expect(formatTokenCount(-1500)).toBe('-1.5K');
  });
});

describe('local models', () => {
  it('are never reported as known: their window is however they are served', () => {
    for (const name of [
      'llama3:8b',
      'ollama/qwen2.5-coder:7b',
      'lmstudio/mistral-7b',
      'local/anything',
      'models/phi-3.Q4_K_M.gguf',
      'qwen2.5-coder:32b-instruct-q4_K_M',
    ]) {
      expect(lookupModelLimit(name), name).toEqual({
        limit: DEFAULT_MODEL_WINDOW,
        found: false,
        local: true,
      });
    }
    for (const name of [
      'us.anthropic.claude-3-5-sonnet-20240620-v1:0',
      'meta-llama/llama-3.3-70b-instruct:free',
      'gpt-4o',
    ]) {
      expect(lookupModelLimit(name).found, name).toBe(true);
    }
  });
});
