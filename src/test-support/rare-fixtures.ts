/**
 * Outputs with one line that matters and no rule for it: what rarity must find (issue 36). The
 * needle's position is a parameter, so a test can put it anywhere.
 */

/** `kubectl get pods -A` of 600 running pods, one crash-looping at `at`. */
export function podTable(at: number): { text: string; needle: string } {
  const rows = Array.from({ length: 600 }, (_, i) => {
    const hash = ((i * 2654435761) >>> 0).toString(36).slice(0, 5);
    return `shop          api-7d9c4${i % 10}-${hash}   1/1     Running   ${i % 3}          ${(i % 50) + 2}d`;
  });
  const needle = 'shop          api-7d9c4f-xk2p9   0/1     CrashLoopBackOff   12 (3m ago)   30m';
  rows.splice(at, 0, needle);
  return {
    text: ['NAMESPACE     NAME              READY   STATUS    RESTARTS   AGE', ...rows].join('\n'),
    needle,
  };
}

/** 5,000 lines of a key=value log no rule knows, with one line that says the cluster degraded. */
export function keyValueLog(at: number): { text: string; needle: string } {
  const messages = ['append ok', 'heartbeat sent', 'snapshot taken', 'commit applied'];
  const lines = Array.from({ length: 5000 }, (_, i) => {
    const ms = String(i % 1000).padStart(3, '0');
    return `ts=2026-12-01T09:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${ms}Z node=n${i % 5} term=${12 + Math.floor(i / 900)} state=HEALTHY lag_ms=${i % 17} msg="${messages[i % 4]}"`;
  });
  const needle = `ts=2026-12-01T09:41:07.117Z node=n2 term=17 state=DEGRADED reason=quorum_lost lag_ms=4100 msg="${messages[0]}"`;
  lines.splice(at, 0, needle);
  return { text: lines.join('\n'), needle };
}

/** 10,000 JSON records alike, one of them odd. */
export function jsonRecords(at: number): { text: string; needle: string } {
  const lines = Array.from({ length: 10_000 }, (_, i) =>
    JSON.stringify({
      id: i,
      user: `u${(i * 7919) % 100_000}`,
      status: 'settled',
      amount: (i % 500) / 4,
      currency: 'EUR',
    }),
  );
  const needle = JSON.stringify({
    id: 99_999,
    user: 'u4242',
    status: 'settled',
    amount: 12.5,
    currency: 'EUR',
    chargeback: 'fraud_suspected',
  });
  lines.splice(at, 0, needle);
  return { text: lines.join('\n'), needle };
}
