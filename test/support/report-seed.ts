/**
 * An evening at two gates, seeded through the real check-in path of a running `serve` (real HTTP, scanners
 * enrolled with setup codes the CLI made): entries spread over several minutes at North and South, two of
 * them admitted offline and synced late, exits at a North exit kiosk, an annulment, a possible offline double
 * admission, and one forged, one revoked and one wrong-event attempt. For the after-event report's tests
 * (test/integration/cli/report.test.ts, test/e2e/report.e2e.test.ts); `expected` is what the report must say.
 */
import crypto from 'node:crypto';
import { expect } from 'vitest';
import { decodeSetupCode } from '../../protocol/setup-code.js';
import { cliJson, issueTickets } from './cli-harness.js';
import { enrollWith, postCheckIn, type HttpScanner } from './issuer-http.js';

const MINUTE = 60_000;

export interface SeededEvening {
  eid: string;
  /** A ticket of the event nobody scanned, and the South scanner: for a scan made after the seeding. */
  spare: string;
  south: HttpScanner;
  /** The first 5-minute bucket: the first entry's minute, aligned on :00, :05, … */
  base: number;
  expected: {
    issued: number;
    checked_in: number;
    annulled: number;
    revoked: number;
    exits: number;
    inside: number;
    entries: number;
    offline_entries: number;
    peak: { minute: number; entries: number };
    /** Entries per 5-minute bucket from `base`: North, South. */
    north: number[];
    south: number[];
    exits_per_bucket: number[];
    double_admissions: number;
    forged: number;
    revoked_attempts: number;
    wrong_event: number;
  };
}

/** `env` reaches the CLI (the PostgreSQL URL, if any). */
export async function seedEvening(url: string, data: string, env: NodeJS.ProcessEnv = {}): Promise<SeededEvening> {
  const now = Date.now();
  const base = Math.floor((now - 60 * MINUTE) / (5 * MINUTE)) * 5 * MINUTE;
  const at = (minutes: number, seconds = 0): string => new Date(base + minutes * MINUTE + seconds * 1000).toISOString();
  const create = (name: string) =>
    cliJson<{ eid: string }>(
      ['event', 'create', '--data', data, '--name', name, '--date', new Date(base).toISOString(), '--venue', 'Pier 4 & "Quay"'],
      env,
    );
  const { eid } = await create('Harbour <Night> & "Friends"');
  const { eid: otherEid } = await create('Another Night');
  const t = await issueTickets(data, eid, 14, ['--type', 'Standard'], env);
  const [other] = await issueTickets(data, otherEid, 1, [], env);
  await cliJson(['ticket', 'revoke', '--data', data, t[13]!, '--reason', 'refund'], env);

  const scanner = async (gate: string, extra: string[] = []): Promise<HttpScanner> => {
    const setup = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', data, '--event', eid, '--gate', gate, ...extra], env);
    const scannerId = crypto.randomUUID();
    const response = await enrollWith(url, decodeSetupCode(setup.setup_qr).token, scannerId);
    expect(response.status).toBe(200);
    return { apiKey: ((await response.json()) as { api_key: string }).api_key, scannerId };
  };
  const north = await scanner('North');
  const south = await scanner('South');
  const northExit = await scanner('North', ['--direction', 'exit']);

  const scan = async (who: HttpScanner, tid: string, fields: Record<string, unknown> = {}) => {
    const response = await postCheckIn(url, who, {
      tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: who.scannerId,
      idempotency_key: crypto.randomUUID(),
      ...fields,
    });
    return { status: response.status, answer: (JSON.parse(response.text) as { status?: string }).status };
  };
  const admit = async (who: HttpScanner, tid: string, fields: Record<string, unknown>) =>
    expect((await scan(who, tid, fields)).answer).toBe('valid');

  // North: 3 in the first minute, 4 at +6 min (the peak); South: 2 at +1 min, then 2 admitted offline at +12 min.
  for (const [i, tid] of [t[0], t[1], t[2]].entries()) await admit(north, tid!, { scanned_at: at(0, 10 * (i + 1)) });
  for (const [i, tid] of [t[3], t[4], t[5], t[6]].entries()) await admit(north, tid!, { scanned_at: at(6, 5 * (i + 1)) });
  for (const tid of [t[7], t[8]]) await admit(south, tid!, { scanned_at: at(1, 30) });
  for (const tid of [t[9], t[10]]) await admit(south, tid!, { scanned_at: at(12, 15), admitted_offline: true });
  // Two go out through the North exit at +20 min.
  for (const tid of [t[0], t[1]]) expect((await scan(northExit, tid!, { action: 'exit', scanned_at: at(20, 0) })).answer).toBe('exited');
  // Staff undo one check-in.
  await cliJson(['checkins', 'annul', '--data', data, t[2]!, '--reason', 'wrong wristband'], env);
  // South's queued scan of a ticket already inside arrives 4 minutes late: a possible offline double admission.
  expect((await scan(south, t[3]!, { scanned_at: new Date(Date.now() - 4 * MINUTE).toISOString() })).answer).toBe('already_used');
  // Refused: a revoked ticket, another event's ticket, and a forged signature reported by the kiosk.
  expect((await scan(north, t[13]!)).answer).toBe('revoked');
  expect((await scan(north, other!)).answer).toBe('wrong_event');
  expect((await scan(south, t[11]!, { signature_status: 'invalid' })).status).toBe(400);

  return {
    eid,
    spare: t[12]!,
    south,
    base,
    expected: {
      issued: 14,
      checked_in: 10,
      annulled: 1,
      revoked: 1,
      exits: 2,
      inside: 8,
      entries: 11,
      offline_entries: 2,
      peak: { minute: base + 6 * MINUTE, entries: 4 },
      north: [3, 4, 0, 0, 0],
      south: [2, 0, 2, 0, 0],
      exits_per_bucket: [0, 0, 0, 0, 2],
      double_admissions: 1,
      forged: 1,
      revoked_attempts: 1,
      wrong_event: 1,
    },
  };
}

/**
 * A tile's number in the report (`<div class="tile" id="total-…">…<div class="value">N</div>`), in any of its
 * languages: the tiles are whole numbers, so every grouping separator (1,234, 1.234, 1 234) is dropped.
 */
export function reportTile(html: string, id: string): number {
  const match = new RegExp(`id="${id}"><div class="label">[^<]*</div><div class="value">([^<]*)</div>`).exec(html);
  if (match === null) throw new Error(`no tile ${id} in the report`);
  return Number(match[1]!.replace(/\D/g, ''));
}

/** The arrivals table's rows, each cell's text. */
export function reportTableRows(html: string, id: string): string[][] {
  const table = new RegExp(`<table id="${id}">([\\s\\S]*?)</table>`).exec(html);
  if (table === null) throw new Error(`no table ${id} in the report`);
  const body = /<tbody>([\s\S]*)<\/tbody>/.exec(table[1]!)![1]!;
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => cell[1]!),
  );
}
