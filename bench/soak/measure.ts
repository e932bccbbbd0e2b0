/** What the soak benchmark measures with, and how it writes figures down. */
import { performance } from 'node:perf_hooks';
import type { ScanResult } from '../../main/kiosk/kiosk-api.js';
import type { Percentiles } from '../bench-kit.js';

const ms = (value: number): string => `${value.toFixed(1)} ms`;
export const describe = (s: Percentiles): string =>
  `p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, max ${ms(s.max)} (${s.count.toLocaleString('en')} samples)`;
export const sleep = (milliseconds: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, milliseconds)));
export const tally = (map: Map<string, number>, key: string): void => void map.set(key, (map.get(key) ?? 0) + 1);
export const tallyText = (map: Map<string, number>): string =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}: ${n.toLocaleString('en')}`)
    .join(', ');

export function verdictKind(result: ScanResult): string {
  if (result.type !== 'verdict') return result.type;
  const verdict = result.verdict as { kind: string; offline?: boolean; reason?: string };
  return `${verdict.kind}${verdict.kind === 'refuse' && verdict.reason ? ` ${verdict.reason}` : ''}${verdict.offline ? ' (offline)' : ''}`;
}

/** Share of the time this thread was busy since the previous call (the first call counts from now). */
export function busyMeter(): () => number {
  let mark = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const delta = performance.eventLoopUtilization(now, mark);
    mark = now;
    return delta.utilization;
  };
}

/**
 * Times every check-in round trip of this thread's kiosks (the pinned client
 * calls the global fetch), by the kiosk's API key, and counts 429 answers.
 */
export function instrumentFetch(onCheckIn: (apiKey: string, elapsedMs: number, status: number, scannedAt: string) => void): void {
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.endsWith('/api/v1/tickets/check-in')) return original(input, init);
    const started = performance.now();
    const response = await original(input, init);
    const bearer = new Headers(init?.headers).get('authorization')?.replace(/^Bearer /, '') ?? '';
    const scannedAt = typeof init?.body === 'string' ? ((JSON.parse(init.body) as { scanned_at?: string }).scanned_at ?? '') : '';
    onCheckIn(bearer, performance.now() - started, response.status, scannedAt);
    return response;
  };
}
