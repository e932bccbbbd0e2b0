/**
 * The scan_log hash chain on PostgreSQL (docs/issuer.md "Audit: tamper-evident logs"), all real: a throwaway
 * cluster, the built CLI, two `serve` processes appending at once. Check-ins go in unsealed and commit side
 * by side; the sealers of both processes chain the committed rows a moment later, taking turns on the head's
 * row lock, so the log is one valid chain in position order (positions need not follow the ids); rows
 * edited, moved or deleted in the table are found and named by `audit verify`, which seals first.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { cliFailure, cliJson, issueTickets, LOOPBACK_SERVE, serveCli } from '../../support/cli-harness.js';
import { checkIn, enroll } from '../../support/issuer-http.js';
import { useTwoNodeIssuerOnPostgres } from '../../support/issuer-on-store.js';

const issuer = useTwoNodeIssuerOnPostgres('Audit Tickets');

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: issuer.cluster.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const verify = () =>
  cliJson<{ ok: boolean; rows: number; unsealed: number; kiosks: number; heads: number; head: { position: number } }>([
    'audit',
    'verify',
    '--data',
    issuer.data,
  ]);

/** Waits until the serve processes' sealers have chained every committed row (no audit verify involved). */
async function sealed(timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql<{ n: string }>('SELECT COUNT(*) AS n FROM scan_log WHERE position IS NULL');
    if (Number(row!.n) === 0) return;
    if (Date.now() > deadline) throw new Error(`${row!.n} scan_log row(s) still unsealed after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every row has a position, and they are exactly 1…n, each once. */
async function positionsAreOneToN(): Promise<number> {
  const rows = await sql<{ position: string | null }>('SELECT position FROM scan_log ORDER BY position');
  expect(rows.map((row) => Number(row.position))).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
  return rows.length;
}

const idAt = async (position: number): Promise<number> =>
  Number((await sql<{ id: string }>('SELECT id FROM scan_log WHERE position = $1', [position]))[0]!.id);

const unsealedRow = (outcome: string) =>
  sql<{ id: string }>(`INSERT INTO scan_log (at, outcome, details) VALUES ($1, $2, '{}') RETURNING id`, [
    new Date().toISOString(),
    outcome,
  ]);
const CONTENT = [
  'position',
  'prev_hash',
  'hash',
  'at',
  'scanned_at',
  'tid',
  'eid',
  'scanner_id',
  'api_key_id',
  'gate_id',
  'idempotency_key',
  'outcome',
  'details',
  'origin',
];

const serveBoth = () =>
  Promise.all(issuer.nodes.map((node) => serveCli(['--data', node, ...LOOPBACK_SERVE, '--enroll-rpm', '1000', '--scanner-rpm', '100000'])));

describe('the scan_log chain on PostgreSQL', () => {
  it('200 concurrent check-ins over two serve processes make one valid chain, sealed after commit', async () => {
    const servers = await serveBoth();
    const urls = servers.map((server) => server.url);
    const scanners = [await enroll(urls[0]!, issuer.data, issuer.event.eid), await enroll(urls[1]!, issuer.data, issuer.event.eid)];
    const tids = await issueTickets(issuer.data, issuer.event.eid, 150);
    // 150 first check-ins and 50 repeats (already_used), all at once, split over both processes.
    const scans = [...tids, ...tids.slice(0, 50)];
    const statuses = await Promise.all(scans.map((tid, i) => checkIn(urls[i % 2]!, scanners[i % 2]!, tid, issuer.event.eid)));
    expect(statuses.filter((s) => s === 'valid')).toHaveLength(150);
    expect(statuses.filter((s) => s === 'already_used')).toHaveLength(50);

    // The sealers of the two processes chain them within about a second, each row once.
    await sealed();
    expect(await positionsAreOneToN()).toBe(200);
    expect(await verify()).toMatchObject({ ok: true, rows: 200, unsealed: 0, head: { position: 200 } });
  }, 180_000);

  it('rows committed out of id order are sealed in commit order and verify', async () => {
    const client = new pg.Client({ connectionString: issuer.cluster.url });
    await client.connect();
    try {
      // The lower id commits last: the higher one is sealed first.
      await client.query('BEGIN');
      const low = Number(
        (
          await client.query<{ id: string }>(`INSERT INTO scan_log (at, outcome) VALUES ($1, 'late') RETURNING id`, [
            new Date().toISOString(),
          ])
        ).rows[0]!.id,
      );
      const high = Number((await unsealedRow('early'))[0]!.id);
      expect(high).toBeGreaterThan(low);
      // No serve process runs here: audit verify seals first, and does not see the uncommitted row.
      expect(await verify()).toMatchObject({ ok: true, rows: 201, unsealed: 0, head: { position: 201 } });
      await client.query('COMMIT');
      expect(await verify()).toMatchObject({ ok: true, rows: 202, unsealed: 0, head: { position: 202 } });
      const positions = await sql<{ id: string; position: string }>('SELECT id, position FROM scan_log WHERE id IN ($1, $2)', [low, high]);
      const at = new Map(positions.map((row) => [Number(row.id), Number(row.position)]));
      expect([at.get(high), at.get(low)]).toEqual([201, 202]);
    } finally {
      await client.end();
    }
  }, 60_000);

  it('the sealers of two processes and two audit verify runs at once never chain a row twice', async () => {
    // 2,000 unsealed rows at once, while both serve processes' sealers and two `audit verify` runs seal them.
    await serveBoth();
    await sql(`INSERT INTO scan_log (at, outcome, details) SELECT $1, 'bulk', '{"n":' || n || '}' FROM generate_series(1, 2000) AS n`, [
      new Date().toISOString(),
    ]);
    const reports = await Promise.all([verify(), verify()]);
    for (const report of reports) expect(report.ok).toBe(true);
    await sealed();
    expect(await positionsAreOneToN()).toBe(2202);
    expect(await verify()).toMatchObject({ ok: true, rows: 2202, unsealed: 0, head: { position: 2202 } });
  }, 120_000);

  it('finds an edited, a moved and a deleted row in the table, and names it', async () => {
    const [a, b] = [await idAt(11), await idAt(12)];

    const [before] = await sql<{ outcome: string }>('SELECT outcome FROM scan_log WHERE id = $1', [a]);
    await sql(`UPDATE scan_log SET outcome = 'revoked' WHERE id = $1`, [a]);
    const edited = await cliFailure(['audit', 'verify', '--data', issuer.data]);
    expect(edited.code).toBe('AUDIT_CHAIN_BROKEN');
    expect(edited.message).toContain(`row id ${a} (position 11)`);
    await sql('UPDATE scan_log SET outcome = $1 WHERE id = $2', [before!.outcome, a]);
    expect((await verify()).ok).toBe(true);

    // Two rows exchange their places in the chain (their positions): ids carry no order on PostgreSQL, so the
    // chain's order is the positions', and each row's hash covers its position: the row now at 11 is found.
    const swap = async () => {
      await sql('UPDATE scan_log SET position = -position WHERE id IN ($1, $2)', [a, b]);
      await sql('UPDATE scan_log SET position = CASE WHEN id = $1 THEN 12 ELSE 11 END WHERE id IN ($1, $2)', [a, b]);
    };
    const swapBack = async () => {
      await sql('UPDATE scan_log SET position = -position WHERE id IN ($1, $2)', [a, b]);
      await sql('UPDATE scan_log SET position = CASE WHEN id = $1 THEN 11 ELSE 12 END WHERE id IN ($1, $2)', [a, b]);
    };
    await swap();
    const moved = await cliFailure(['audit', 'verify', '--data', issuer.data]);
    expect(moved.code).toBe('AUDIT_CHAIN_BROKEN');
    expect(moved.message).toContain(`row id ${b} (position 11): its hash does not match its contents`);
    await swapBack();
    expect((await verify()).ok).toBe(true);

    // Everything but the ids exchanged: the same rows in the same chain order, which is all the chain orders.
    const pair = await sql<Record<string, unknown>>(`SELECT id, ${CONTENT.join(', ')} FROM scan_log WHERE id IN ($1, $2)`, [a, b]);
    const byId = new Map(pair.map((row) => [Number(row.id), row]));
    const exchange = async () => {
      await sql('UPDATE scan_log SET position = -position WHERE id IN ($1, $2)', [a, b]);
      for (const [target, source] of [
        [a, b],
        [b, a],
      ] as const) {
        const row = byId.get(source)!;
        await sql(`UPDATE scan_log SET ${CONTENT.map((col, i) => `${col} = $${i + 1}`).join(', ')} WHERE id = $${CONTENT.length + 1}`, [
          ...CONTENT.map((col) => row[col]),
          target,
        ]);
      }
    };
    await exchange();
    expect((await verify()).ok).toBe(true);

    const next = await idAt(22);
    await sql('DELETE FROM scan_log WHERE position = 21');
    const deleted = await cliFailure(['audit', 'verify', '--data', issuer.data]);
    expect(deleted.message).toContain('position 21 is missing');
    expect(deleted.message).toContain(`(id ${next})`);
  }, 120_000);
});
