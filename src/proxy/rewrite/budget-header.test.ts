import { describe, expect, it } from 'vitest';
import { pinnedTools, toolOverride } from '../../engine/tool-overrides.js';
import { parseBudgetHeader } from './budget-header.js';

describe('x-spillway-budget', () => {
  it('reads a budget for every tool, per tool, and prefix patterns', () => {
    expect(parseBudgetHeader(undefined)).toBeUndefined();
    expect(parseBudgetHeader('1500')).toEqual({ all: 1500, tools: {} });
    expect({ ...parseBudgetHeader('Bash=4000, mcp__*=800 ,0')?.tools }).toEqual({
      Bash: 4000,
      'mcp__*': 800,
    });
    expect(parseBudgetHeader('Bash=4000, 0')?.all).toBe(0);
  });

  it('refuses what is not a budget, saying what to send', () => {
    for (const bad of ['', 'lots', 'Bash=', 'Bash=-3', 'Bash=1.5', 'Ba sh=3', '=3', 'Bash=99999999999'])
      expect(() => parseBudgetHeader(bad), bad).toThrow(/x-spillway-budget: .*send a token budget/);
    expect(() => parseBudgetHeader(Array.from({ length: 51 }, () => '1').join(','))).toThrow(/more than 50/);
  });

  it('pins over the configured tools, an exempt tool staying exempt, "__proto__" a name like any other', () => {
    const config = { Read: { maxTokens: 8000 }, Secret: { exempt: true } };
    const all = pinnedTools(config, { all: 1500, tools: { Bash: 4000 } });
    expect(toolOverride(all, 'Read')?.maxTokens).toBe(1500);
    expect(toolOverride(all, 'Grep')?.maxTokens).toBe(1500);
    expect(toolOverride(all, 'Bash')?.maxTokens).toBe(4000);
    expect(toolOverride(all, 'Secret')).toEqual({ exempt: true, maxTokens: 1500 });
    const proto = pinnedTools(config, parseBudgetHeader('__proto__=5'));
    expect(toolOverride(proto, '__proto__')?.maxTokens).toBe(5);
    expect(toolOverride(proto, 'Read')?.maxTokens).toBe(8000);
    expect(({} as Record<string, unknown>).maxTokens).toBeUndefined();
    expect(pinnedTools(config, undefined)).toBe(config);
  });
});
