/**
 * (g) What the scan_log hash chain costs per check-in (docs/issuer.md "Audit: tamper-evident logs";
 * docs/benchmarks.md "The hash chain"). Measured on the benchmark's own store after the check-in runs:
 *
 * - the hash alone: SHA-256 over a typical check-in row's encoding (protocol/audit-chain.ts), in process;
 * - an append as the write path does it (appendChained: on SQLite read the head, insert the row with its
 *   chain columns, move the head; on PostgreSQL insert the row unsealed, no head lock) against the plain
 *   INSERT scan_log had before, each as its own durable write job, CONCURRENCY of them at once (so SQLite
 *   group-commits them, and PostgreSQL's appends commit side by side as concurrent check-ins do);
 * - PostgreSQL: sealing those appends after commit (sealScanLog: write jobs of SEAL_BATCH rows under the
 *   head's row lock, as the sealer of every `serve` process runs them), in rows per second;
 * - `audit verify` over the whole chain, in rows per second.
 *
 * The check-in throughput (b) above already includes the chain: every check-in appends through it.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { chainFields, chainHash, GENESIS_HASH, SCAN_LOG_CHAIN_FIELDS } from '../protocol/audit-chain.js';
import {
  appendChained,
  CONTENT_COLUMNS,
  nodeSha256Hex,
  SEAL_BATCH,
  sealScanLog,
  verifyScanLog,
  type ScanLogContent,
} from '../issuer/store/audit-log.js';
import type { SqlDatabase } from '../issuer/store/sql.js';

const HASHES = 50_000;
const APPENDS = 2_000;
const CONCURRENCY = 32;

function row(): ScanLogContent {
  const now = new Date().toISOString();
  return {
    at: now,
    scanned_at: now,
    tid: randomUUID().replaceAll('-', '').slice(0, 26).toUpperCase(),
    eid: '01JBENCHEVENT0000000000000',
    scanner_id: randomUUID(),
    api_key_id: 'key_0123456789abcdef',
    gate_id: 'A',
    idempotency_key: randomUUID(),
    outcome: 'valid',
    details: JSON.stringify({ check: 'first_check_in', http_status: 200 }),
  };
}

/** scan_log's content columns: the plain log the chained one is measured against. */
const PLAIN_COLUMNS = CONTENT_COLUMNS;

/** `count` write jobs, `concurrency` in flight at a time; the mean time per job over the whole run, in ms. */
async function timeJobs(database: SqlDatabase, count: number, concurrency: number, job: () => Promise<void>): Promise<number> {
  const start = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      await job();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return (performance.now() - start) / count;
}

export interface ChainCost {
  hashUs: number;
  plainMs: number;
  chainedMs: number;
  /** PostgreSQL: rows sealed per second after their commit (null on SQLite, which chains as it writes). */
  sealRowsPerSecond: number | null;
  verifyRowsPerSecond: number;
  rowsVerified: number;
}

export async function measureChainCost(database: SqlDatabase): Promise<ChainCost> {
  const sample = { ...row(), origin: null, position: 123_456 };
  const fields = chainFields(sample, SCAN_LOG_CHAIN_FIELDS);
  let hash = GENESIS_HASH;
  const hashStart = performance.now();
  // As the issuer hashes: node:crypto's SHA-256.
  for (let i = 0; i < HASHES; i++) hash = chainHash(hash, fields, nodeSha256Hex);
  const hashUs = ((performance.now() - hashStart) * 1000) / HASHES;

  // The plain INSERT, into a table of scan_log's old shape (no chain), so the real chain stays valid.
  await database.write(async (tx) => {
    await tx.run(`CREATE TABLE bench_plain_log (${PLAIN_COLUMNS.map((c) => `${c} TEXT`).join(', ')})`);
  });
  const insert = `INSERT INTO bench_plain_log (${PLAIN_COLUMNS.join(', ')}) VALUES (${PLAIN_COLUMNS.map(() => '?').join(', ')})`;
  try {
    const plainMs = await timeJobs(database, APPENDS, CONCURRENCY, async () => {
      const r = row();
      await database.write(
        async (tx) =>
          void (await tx.run(
            insert,
            PLAIN_COLUMNS.map((c) => r[c as keyof ScanLogContent] ?? null),
          )),
      );
    });
    const chainedMs = await timeJobs(database, APPENDS, CONCURRENCY, async () => {
      const r = row();
      await database.write((tx) => appendChained(tx, [r]));
    });
    const sealStart = performance.now();
    const sealed = await sealScanLog(database);
    const sealRowsPerSecond = database.dialect === 'postgres' ? sealed / ((performance.now() - sealStart) / 1000) : null;
    const verifyStart = performance.now();
    const report = await verifyScanLog(database.read);
    if (!report.ok) throw new Error(`the chain does not verify after the benchmark: ${JSON.stringify(report.broken)}`);
    const verifySeconds = (performance.now() - verifyStart) / 1000;
    return { hashUs, plainMs, chainedMs, sealRowsPerSecond, verifyRowsPerSecond: report.rows / verifySeconds, rowsVerified: report.rows };
  } finally {
    await database.write(async (tx) => void (await tx.run('DROP TABLE bench_plain_log')));
  }
}

export function printChainCost(cost: ChainCost, store: string): void {
  const fmt = (n: number, digits = 0): string =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  console.log('');
  console.log(`(g) the scan_log hash chain (${store}; ${fmt(APPENDS)} appends each way, ${CONCURRENCY} write jobs in flight):`);
  console.log('');
  console.log('| measurement | per row | |');
  console.log('|---|---|---|');
  console.log(`| SHA-256 of one check-in row's encoding (in process, node:crypto) | ${fmt(cost.hashUs, 1)} µs | |`);
  console.log(`| plain INSERT, own durable write job | ${fmt(cost.plainMs, 3)} ms | ${fmt(1000 / cost.plainMs)} rows/s |`);
  console.log(
    `| ${store === 'PostgreSQL' ? 'append (insert unsealed, no head lock)' : 'chained append (head read, insert, head update)'}, own durable write job | ${fmt(cost.chainedMs, 3)} ms | ${fmt(1000 / cost.chainedMs)} rows/s |`,
  );
  console.log(`| the chain's cost per append | ${fmt(cost.chainedMs - cost.plainMs, 3)} ms | |`);
  if (cost.sealRowsPerSecond !== null) {
    console.log(
      `| sealing after commit (${fmt(SEAL_BATCH)} rows a write job, under the head's lock) | ${fmt(1_000_000 / cost.sealRowsPerSecond, 1)} µs | ${fmt(cost.sealRowsPerSecond)} rows/s |`,
    );
  }
  console.log(
    `| audit verify (${fmt(cost.rowsVerified)} rows) | ${fmt(1_000_000 / cost.verifyRowsPerSecond, 1)} µs | ${fmt(cost.verifyRowsPerSecond)} rows/s |`,
  );
}
