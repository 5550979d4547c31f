import { levelMark, structuredLevel } from '../patterns.js';
import type { SignalPack } from '../rule.js';

/** Logs: levels above warning as loggers print them, in text, JSON and logfmt. */
export const logs: SignalPack = {
  name: 'logs',
  rules: [
    {
      id: 'logs/error-level',
      kind: 'error',
      // JSON's and logfmt's level field (pino's and bunyan's 50 and 60).
      pattern: structuredLevel(
        ['error', 'err', 'fatal', 'critical', 'crit', 'panic', 'alert', 'emergency', 'emerg'],
        '[56]0',
      ),
      marks: [levelMark('EeFfCcPpAa', '56')],
      middle: [levelMark('EeFfCcPpAa', '56')],
      examples: [
        '{"level":50,"time":1764579600000,"pid":42,"hostname":"api-7","msg":"database unavailable"}',
        '{"level": "error", "ts": "2026-12-01T09:30:00Z", "caller": "orders/sync.go:88", "msg": "sync stopped"}',
        '{"severity":"ERROR","message":"upstream timed out"}',
        'time="2026-12-01T09:00:00Z" level=error msg="connection refused" component=db',
        '{"level":60,"msg":"out of memory, exiting"}',
      ],
      counterExamples: [
        '{"level":30,"time":1764579600000,"msg":"request completed","responseTime":12}',
        '{"level":"info","msg":"listening on :8080"}',
        'level=info msg="started" took=50ms',
      ],
    },
    {
      id: 'logs/critical',
      kind: 'error',
      // CRITICAL or PANIC as a level: after a timestamp, in brackets, between bars.
      pattern: /(?:[\d\]] |\[|\| )CRITICAL\b|[\d\]] PANIC: /,
      marks: ['CRITICAL', 'PANIC'],
      middle: ['CRITICAL', 'PANIC'],
      examples: [
        '2026-12-01 09:00:00,000 CRITICAL app: out of memory',
        '2026-12-01 09:00:00.123 UTC [812] PANIC:  could not write to file "pg_wal/xlogtemp.812"',
        '2026-12-01 09:00:00.000 | CRITICAL | app.db:connect:42 - pool exhausted',
        '[2026-12-01 09:00:00] [CRITICAL] pool exhausted',
      ],
      counterExamples: ['  critical path: 12 tasks', "DON'T PANIC: the answer is 42"],
    },
    {
      id: 'logs/postgres-panic',
      kind: 'error',
      pattern: /^PANIC: /,
      marks: ['PANIC'],
      middle: ['PANIC'],
      examples: ['PANIC: could not locate a valid checkpoint record'],
    },
    {
      id: 'logs/server-crit',
      kind: 'error',
      // nginx's and Apache's [crit], [alert] and [emerg].
      pattern: /\[(?:[\w-]+:)?(?:crit|alert|emerg)\]/,
      marks: ['crit\\]', 'alert\\]', 'emerg\\]'],
      middle: ['\\[(?:[\\w-]+:)?(?:crit|alert|emerg)\\]'],
      examples: [
        '2026/12/01 09:00:00 [alert] 1#1: worker process 42 exited on signal 9',
        '[Mon Dec 01 09:00:00.000 2026] [ssl:emerg] [pid 42] AH02572: at least one certificate',
      ],
      counterExamples: ['[notice] 1#1: start worker process 42'],
    },
    {
      id: 'logs/warn-level',
      kind: 'warning',
      pattern: structuredLevel(['warning', 'warn'], '40'),
      marks: [levelMark('Ww', '4')],
      middle: [levelMark('Ww', '4')],
      middleWords: ['warn', 'Warn', 'WARN'],
      examples: [
        '{"level":40,"time":1764579600000,"msg":"slow query took 2300 ms"}',
        '{"levelname": "WARNING", "message": "retrying upload"}',
        'level=warn msg="disk 91% full"',
      ],
      counterExamples: ['level=info msg="warm cache"'],
    },
  ],
};
