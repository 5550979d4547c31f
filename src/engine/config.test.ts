import { describe, expect, it } from 'vitest';
import { PRESETS, resolveEngineConfig } from './config.js';

describe('presets and config', () => {
  it('has the presets docs/internals.md lists', () => {
    const names = (preset: string) => resolveEngineConfig({ preset }).stages.map((s) => s.name);
    expect(names('off')).toEqual([]);
    expect(names('safe')).toEqual(['textclean', 'format', 'collapse']);
    // The issue "Never over the window" puts observation masking in balanced (keep the 10 newest).
    expect(names('balanced')).toEqual([
      'textclean',
      'format',
      'dedup',
      'rerun',
      'linecap',
      'collapse',
      'supersede',
      'mask',
    ]);
    expect(PRESETS.balanced).toContainEqual({ name: 'mask', keepRecent: 10, batch: 10 });
    expect(names('aggressive')).toEqual(names('balanced'));
    expect(resolveEngineConfig().preset).toBe('balanced');
    expect(PRESETS.safe).toContainEqual({ name: 'collapse', maxTokens: 3000, keepReads: true });
    expect(PRESETS.balanced).toContainEqual({ name: 'collapse', maxTokens: 2000, keepReads: true });
    expect(PRESETS.aggressive).toContainEqual({ name: 'collapse', maxTokens: 1000 });
  });

  it('takes its own stage lists with options, and per-tool overrides', () => {
    const p = resolveEngineConfig({
      stages: ['textclean', { name: 'collapse', maxTokens: 500, headLines: 5 }],
      tools: { Read: { maxTokens: 4000 }, 'mcp__*': { exempt: true } },
      tokenizer: 'cl100k',
    });
    expect(p.preset).toBe('custom');
    expect(p.specs).toEqual([{ name: 'textclean' }, { name: 'collapse', maxTokens: 500, headLines: 5 }]);
    expect(p.tokenizer.name).toBe('cl100k');
    expect(Object.isFrozen(p)).toBe(true);
    expect(Object.isFrozen(p.tools)).toBe(true);
  });

  it('rejects unknown keys and bad values with messages that say what is allowed', () => {
    const cases: [unknown, RegExp][] = [
      [{ presett: 'safe' }, /config: unknown key "presett"; allowed: preset, stages, tokenizer, tools/],
      [{ preset: 'fast' }, /unknown preset "fast"; presets: off, safe, balanced, aggressive/],
      [
        { stages: ['squash'] },
        /stages\[0\]: unknown stage "squash"; stages: textclean, format, dedup, rerun, linecap, collapse, supersede, mask/,
      ],
      [
        { stages: [{ name: 'collapse', maxTokns: 5 }] },
        /stages\[0\] \(collapse\): unknown key "maxTokns"; allowed: name, maxTokens, maxFrac, headLines, tailLines, keepReads, readMaxTokens, readTools/,
      ],
      [{ stages: [{ name: 'collapse', maxTokens: -1 }] }, /"maxTokens" must be a whole number >= 0, got -1/],
      [
        { stages: [{ name: 'collapse', maxFrac: 1.5 }] },
        /"maxFrac" must be a number above 0 and at most 1, got 1.5/,
      ],
      [{ stages: [{ name: 'mask', batch: 0 }] }, /"batch" must be a whole number >= 1/],
      [{ stages: 'collapse' }, /"stages" must be a list/],
      [{ tokenizer: 'gpt2' }, /unknown tokenizer "gpt2"/],
      [{ tools: { Read: { exempt: 'yes' } } }, /tools\["Read"\]: "exempt" must be true or false/],
      [
        { tools: { Read: { budget: 5 } } },
        /tools\["Read"\]: unknown key "budget"; allowed: exempt, maxTokens/,
      ],
      [[], /config must be a JSON object/],
    ];
    for (const [config, message] of cases) {
      expect(() => resolveEngineConfig(config), JSON.stringify(config)).toThrow(message);
      try {
        resolveEngineConfig(config);
      } catch (err) {
        expect((err as { code: string }).code).toBe('SPILLWAY_BAD_CONFIG');
      }
    }
  });
});
