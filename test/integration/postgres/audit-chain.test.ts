/**
 * The scan_log hash chain on PostgreSQL (docs/issuer.md "Audit: tamper-evident logs"), all real: a throwaway
 * cluster, the built CLI, two `serve` processes appending at once. Concurrent appends take turns on the chain
 * head's row lock, so the log is one valid chain whose positions follow the ids; rows edited, reordered or
 * deleted in the table are found and named by `audit verify`.
 */
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliFailure,
  cliJson,
  createEvent,
  issueTickets,
  LOOPBACK_SERVE,
  scratchDir,
  serveCli,
  type EventJson,
} from '../../support/cli-harness.js';
import { checkIn, enroll } from '../../support/issuer-http.js';
import { startPostgresCluster, type PostgresCluster } from '../../support/postgres-cluster.js';

let cluster: PostgresCluster;
let data: string;
let event: EventJson;
const nodes: string[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster({ database: 'audit' });
  data = path.join(scratchDir(), 'issuer-data');
  await cliJson(['init', '--data', data, '--database', cluster.url, '--base-url', 'http://127.0.0.1:8080', '--name', 'Audit Tickets']);
  event = await createEvent(data);
  for (const name of ['node-a', 'node-b']) {
    const node = path.join(scratchDir(), name);
    await cliJson(['node-config', '--data', data, '--to', node]);
    nodes.push(node);
  }
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
}, 60_000);

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const verify = () =>
  cliJson<{ ok: boolean; rows: number; kiosks: number; heads: number; head: { position: number } }>(['audit', 'verify', '--data', data]);
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

describe('the scan_log chain on PostgreSQL', () => {
  it('200 concurrent check-ins over two serve processes make one valid chain, positions in id order', async () => {
    const servers = await Promise.all(
      nodes.map((node) => serveCli(['--data', node, ...LOOPBACK_SERVE, '--enroll-rpm', '1000', '--scanner-rpm', '100000'])),
    );
    const urls = servers.map((server) => server.url);
    const scanners = [await enroll(urls[0]!, data, event.eid), await enroll(urls[1]!, data, event.eid)];
    const tids = await issueTickets(data, event.eid, 150);
    // 150 first check-ins and 50 repeats (already_used), all at once, split over both processes.
    const scans = [...tids, ...tids.slice(0, 50)];
    const statuses = await Promise.all(scans.map((tid, i) => checkIn(urls[i % 2]!, scanners[i % 2]!, tid, event.eid)));
    expect(statuses.filter((s) => s === 'valid')).toHaveLength(150);
    expect(statuses.filter((s) => s === 'already_used')).toHaveLength(50);

    const rows = await sql<{ id: string; position: string }>('SELECT id, position FROM scan_log ORDER BY id');
    expect(rows).toHaveLength(200);
    expect(rows.map((row) => Number(row.position))).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(await verify()).toMatchObject({ ok: true, rows: 200, head: { position: 200 } });
  }, 180_000);

  it('finds an edited, a reordered and a deleted row in the table, and names it', async () => {
    const ids = (await sql<{ id: string }>('SELECT id FROM scan_log ORDER BY id')).map((row) => Number(row.id));
    const [a, b, c] = [ids[10]!, ids[11]!, ids[20]!];

    const [before] = await sql<{ outcome: string }>('SELECT outcome FROM scan_log WHERE id = $1', [a]);
    await sql(`UPDATE scan_log SET outcome = 'revoked' WHERE id = $1`, [a]);
    const edited = await cliFailure(['audit', 'verify', '--data', data]);
    expect(edited.code).toBe('AUDIT_CHAIN_BROKEN');
    expect(edited.message).toContain(`row id ${a} (position 11)`);
    await sql('UPDATE scan_log SET outcome = $1 WHERE id = $2', [before!.outcome, a]);
    expect((await verify()).ok).toBe(true);

    // Two rows exchange places (everything but their ids): out of the chain's order.
    const swap = async () => {
      const pair = await sql<Record<string, unknown>>(`SELECT id, ${CONTENT.join(', ')} FROM scan_log WHERE id IN ($1, $2)`, [a, b]);
      const byId = new Map(pair.map((row) => [Number(row.id), row]));
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
    await swap();
    const reordered = await cliFailure(['audit', 'verify', '--data', data]);
    expect(reordered.message).toContain(`row id ${a} has position 12 where position 11 was due`);
    await swap();
    expect((await verify()).ok).toBe(true);

    await sql('DELETE FROM scan_log WHERE id = $1', [c]);
    const deleted = await cliFailure(['audit', 'verify', '--data', data]);
    expect(deleted.message).toContain('position 21 is missing');
    expect(deleted.message).toContain(`(id ${ids[21]})`);
  }, 120_000);
});
