import { describe, expect, it } from 'vitest';
import { quietLevel, shapeOf, templateOf } from './shape.js';

describe('line shapes and templates', () => {
  it('a template masks whole words that hold digits: one event from many nodes and times', () => {
    const a = 'KERNSTOR 1118709403 2005.06.13 R10-M1-N5-C:J17-U01 RAS KERNEL FATAL data storage interrupt';
    const b = 'KERNSTOR 1118709482 2005.06.13 R16-M0-NB-C:J09-U11 RAS KERNEL FATAL data storage interrupt';
    expect(shapeOf(a)).not.toBe(shapeOf(b));
    expect(templateOf(a)).toBe(templateOf(b));
    expect(templateOf(a)).not.toBe(templateOf(b.replace('storage', 'TLB error')));
  });

  it('a quiet level is a logger word of its own, with no loud one beside it', () => {
    for (const line of [
      '- 1117838570 2005.06.03 R02-M1-N0 RAS KERNEL INFO instruction cache parity error corrected',
      '2024-01-02 10:11:12,345 DEBUG retrying after error: connection reset',
      '[info] error budget at 40%',
      '081109 203615 148 INFO dfs.DataNode: error count 0',
    ])
      expect(quietLevel(line), line).toBe(true);
    for (const line of [
      '- 1117838570 RAS KERNEL FATAL data TLB error interrupt',
      'INFO ERROR mixed: the loud one wins',
      'error: info about the failure',
      'the information desk reported an error',
      'INFORMATION: error reading header',
    ])
      expect(quietLevel(line), line).toBe(false);
  });
});
