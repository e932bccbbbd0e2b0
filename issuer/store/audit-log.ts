/**
 * The scan_log's hash chain and the kiosks' reported chain heads (docs/issuer.md "Audit: tamper-evident
 * logs"). The encoding is protocol/audit-chain.ts; this module knows the SQL.
 *
 * Appending (appendChained). SQLite: read the head row, hash the new rows onto it, insert them with their
 * positions and move the head, all in the caller's write transaction (the write lock serialises writers, so
 * this costs next to nothing). In the group commit the head is read once per batch and written once, before
 * its COMMIT (sql.ts BatchState): every append of the batch moves the batch's head, so the head row's read and
 * update are no longer a per-check-in cost (docs/benchmarks.md "Fewer writes per check-in").
 *
 * PostgreSQL: sealed after commit. A check-in inserts its row with position,
 * prev_hash and hash NULL and takes no lock on the head, so check-ins of every process commit side by side; a
 * sealer in every `serve` process (startScanLogSealer) chains the committed unsealed rows in small write jobs
 * a moment later, under the head's row lock (chainUnchainedRows), so concurrent sealers take turns and the
 * second finds nothing left. A row is sealed within about a second of its commit; `audit verify` and `export`
 * seal first (sealScanLog). Since a row with a lower id can commit after a higher one was sealed, the chain's
 * order on PostgreSQL is its positions', not its ids'.
 */
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  ChainVerifier,
  chainFields,
  chainHash,
  headContradiction,
  SCAN_LOG_CHAIN_FIELDS,
  type ChainBreak,
  type LogHead,
  type ReportedHead,
} from '../../protocol/audit-chain.js';
import type { ScanLogRow } from './log-rows.js';
import type { Sql, SqlDatabase } from './sql.js';
import type { Write } from './write-batch.js';
import { transferTypes } from './columns.js';

/** protocol/audit-chain.ts's SHA-256, by node:crypto: the same hex, about ten times faster than the pure one. */
export const nodeSha256Hex = (message: Uint8Array): string => createHash('sha256').update(message).digest('hex');

/** A scan_log row before it is chained (origin: its place in another copy's chain, for a row an import re-chained). */
export type ScanLogContent = ScanLogRow & { origin?: string | null };

export interface ChainColumns {
  position: number;
  prev_hash: string;
  hash: string;
}

/** scan_log's chain columns: the row's place in this copy's chain, and in another's for a row an import re-chained. */
const CHAIN_COLUMNS = ['origin', 'position', 'prev_hash', 'hash'];

/** scan_log's content columns (ScanLogRow): those that travel but the chain's, in the order they are written and exported. */
export const CONTENT_COLUMNS: readonly string[] = Object.keys(transferTypes('scan_log')).filter(
  (column) => !CHAIN_COLUMNS.includes(column),
);
const INSERT_COLUMNS = [...CONTENT_COLUMNS, ...CHAIN_COLUMNS];

/** The row's chain columns, hashed onto `head`. */
export function chainOnto(head: LogHead, row: ScanLogContent): ChainColumns {
  const position = head.position + 1;
  const values = { ...row, origin: row.origin ?? null, position };
  return { position, prev_hash: head.hash, hash: chainHash(head.hash, chainFields(values, SCAN_LOG_CHAIN_FIELDS), nodeSha256Hex) };
}

/** The key of the chain's head in a group commit's shared state (sql.ts BatchState). */
const BATCH_HEAD = 'scan_log_head';

/** The head, locked until the transaction ends on PostgreSQL; in a group commit, as the batch's appends left it. */
async function lockHead(tx: Sql): Promise<LogHead> {
  const moved = tx.batch?.get<LogHead>(BATCH_HEAD);
  if (moved !== undefined) return moved;
  const sql = `SELECT position, hash FROM scan_log_head WHERE singleton = 1${tx.dialect === 'postgres' ? ' FOR UPDATE' : ''}`;
  const head = await tx.get<LogHead>(sql);
  if (!head) throw new Error('scan_log_head has no row: the database was not migrated to version 4');
  return { position: Number(head.position), hash: head.hash };
}

async function storeHead(tx: Sql, head: LogHead): Promise<void> {
  await tx.run('UPDATE scan_log_head SET position = ?, hash = ? WHERE singleton = 1', [head.position, head.hash]);
}

/** Moves the head: at once, or in a group commit once for the whole batch, before its COMMIT. */
async function moveHead(tx: Sql, head: LogHead): Promise<void> {
  if (tx.batch === undefined) await storeHead(tx, head);
  else tx.batch.set(BATCH_HEAD, head, storeHead);
}

const tuple = `(${INSERT_COLUMNS.map(() => '?').join(', ')})`;
const BATCH = 300;

/**
 * Appends rows to scan_log, in the caller's transaction. SQLite: at the end of the chain, in order. A row that
 * already carries chain columns that continue this chain exactly (`keep`: an import into an empty or
 * unchanged copy) keeps them; every other row gets the next position here.
 *
 * PostgreSQL: rows without chain columns (a check-in; an import of a file from before the chain) go in
 * unsealed, position NULL, for the sealer. Rows that carry chain columns (an import of a chained copy) are
 * chained here as on SQLite, after the rows already committed unsealed are sealed in the same transaction,
 * so a row whose chain continues this one still keeps its columns.
 */
export async function appendChained(tx: Sql, rows: readonly (ScanLogContent & Partial<ChainColumns>)[]): Promise<void> {
  if (rows.length === 0) return;
  if (tx.dialect === 'postgres') {
    if (rows.every((row) => typeof row.position !== 'number')) return insertUnsealed(tx, rows);
    await chainUnchainedRows(tx);
  }
  let head = await lockHead(tx);
  const chained = rows.map((row) => {
    let content: ScanLogContent = { ...row, origin: row.origin ?? null };
    let own = chainOnto(head, content);
    if (typeof row.position === 'number' && (own.position !== row.position || own.hash !== row.hash)) {
      // A row from another copy whose chain went on differently: chained here, its place there kept in origin.
      const origin = JSON.stringify({
        position: row.position,
        prev_hash: row.prev_hash ?? null,
        hash: row.hash ?? null,
        origin: row.origin ?? null,
      });
      content = { ...content, origin };
      own = chainOnto(head, content);
    }
    head = { position: own.position, hash: own.hash };
    return { ...content, ...own };
  });
  const values = (row: (typeof chained)[number]) =>
    INSERT_COLUMNS.map((c) => (row as unknown as Record<string, string | number | null>)[c] ?? null);
  for (let i = 0; i < chained.length; i += BATCH) {
    const batch = chained.slice(i, i + BATCH);
    await tx.run(`INSERT INTO scan_log (${INSERT_COLUMNS.join(', ')}) VALUES ${batch.map(() => tuple).join(', ')}`, batch.flatMap(values));
  }
  await moveHead(tx, head);
}

/** Rows with position NULL (from before migration 4), chained in id order after the chain. SQLite, synchronous (migrate()). */
export function chainUnchainedRowsSqlite(db: Database.Database): number {
  const head = db.prepare('SELECT position, hash FROM scan_log_head WHERE singleton = 1').get() as LogHead;
  let last: LogHead = { position: head.position, hash: head.hash };
  const update = db.prepare('UPDATE scan_log SET position = ?, prev_hash = ?, hash = ? WHERE id = ?');
  let count = 0;
  for (const row of db.prepare('SELECT * FROM scan_log WHERE position IS NULL ORDER BY id').iterate() as Iterable<
    ScanLogContent & { id: number }
  >) {
    const own = chainOnto(last, row);
    update.run(own.position, own.prev_hash, own.hash, row.id);
    last = { position: own.position, hash: own.hash };
    count++;
  }
  db.prepare('UPDATE scan_log_head SET position = ?, hash = ? WHERE singleton = 1').run(last.position, last.hash);
  return count;
}

const UNSEALED_COLUMNS = [...CONTENT_COLUMNS, 'origin'];
const unsealedTuple = `(${UNSEALED_COLUMNS.map(() => '?').join(', ')})`;

/** PostgreSQL: one row with no chain columns yet, as a write of a batch (write-batch.ts): the statement insertUnsealed makes for one row. */
export function unsealedScanLogWrite(row: ScanLogContent): Write {
  return {
    sql: `INSERT INTO scan_log (${UNSEALED_COLUMNS.join(', ')}) VALUES ${unsealedTuple}`,
    params: UNSEALED_COLUMNS.map((c) => (row as unknown as Record<string, string | null>)[c] ?? null),
  };
}

/** PostgreSQL: rows with no chain columns yet, for the sealer; no lock on the head. */
async function insertUnsealed(tx: Sql, rows: readonly ScanLogContent[]): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    await tx.run(
      `INSERT INTO scan_log (${UNSEALED_COLUMNS.join(', ')}) VALUES ${batch.map(() => unsealedTuple).join(', ')}`,
      batch.flatMap((row) => UNSEALED_COLUMNS.map((c) => (row as unknown as Record<string, string | null>)[c] ?? null)),
    );
  }
}

const SEAL_PAGE = 500;

/**
 * PostgreSQL only (SQLite: chainUnchainedRowsSqlite): rows with position NULL, chained in id order after the
 * chain's head, under the head's row lock (committed unsealed rows, see appendChained; and rows from before
 * migration 4, in migratePostgres's transaction). At most `limit` rows (all by default); returns how many it chained.
 */
export async function chainUnchainedRows(tx: Sql, limit = Number.POSITIVE_INFINITY): Promise<number> {
  let last = await lockHead(tx);
  const start = last.position;
  let count = 0;
  while (count < limit) {
    const page = await tx.all<ScanLogContent & { id: number }>('SELECT * FROM scan_log WHERE position IS NULL ORDER BY id LIMIT ?', [
      Math.min(SEAL_PAGE, limit - count),
    ]);
    const updates: (string | number)[][] = [];
    for (const row of page) {
      const own = chainOnto(last, row);
      updates.push([Number(row.id), own.position, own.prev_hash, own.hash]);
      last = { position: own.position, hash: own.hash };
    }
    if (updates.length > 0) {
      // One statement per page: the sealer holds the head for as short a time as it can.
      await tx.run(
        `UPDATE scan_log AS s SET position = v.position, prev_hash = v.prev_hash, hash = v.hash
         FROM (VALUES ${updates.map(() => '(?::bigint, ?::bigint, ?, ?)').join(', ')}) AS v(id, position, prev_hash, hash)
         WHERE s.id = v.id`,
        updates.flat(),
      );
    }
    count += page.length;
    if (page.length < SEAL_PAGE) break;
  }
  if (last.position !== start) await storeHead(tx, last);
  return count;
}

/** Rows one seal job chains at most: the head's row lock is held for one such job at a time. */
export const SEAL_BATCH = 2000;

/**
 * Seals every row committed unsealed so far (PostgreSQL; nothing to do on SQLite, whose rows are chained as
 * they are written), in write jobs of SEAL_BATCH rows. Returns how many rows it chained.
 */
export async function sealScanLog(database: SqlDatabase): Promise<number> {
  if (database.dialect !== 'postgres') return 0;
  let total = 0;
  for (;;) {
    const unsealed = await database.read.get<{ id: number }>('SELECT id FROM scan_log WHERE position IS NULL LIMIT 1');
    if (!unsealed) return total;
    const sealed = await database.write((tx) => chainUnchainedRows(tx, SEAL_BATCH));
    total += sealed;
    if (sealed < SEAL_BATCH) return total;
  }
}

/** How often a `serve` process on PostgreSQL looks for unsealed rows. */
export const SEAL_EVERY_MS = 200;

export interface ScanLogSealer {
  /** Stops the timer and waits for a seal under way; call before the database closes. */
  stop(): Promise<void>;
}

/**
 * Every SEAL_EVERY_MS (unref'd), seals what was committed unsealed (sealScanLog): started by every `serve`
 * process on PostgreSQL. A failed pass is reported and tried again at the next tick.
 */
export function startScanLogSealer(database: SqlDatabase, onError: (error: unknown) => void): ScanLogSealer {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = sealScanLog(database)
      .then(
        () => undefined,
        (error: unknown) => {
          if (!stopped) onError(error);
        },
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, SEAL_EVERY_MS).unref();
      });
  };
  timer = setTimeout(tick, SEAL_EVERY_MS).unref();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** The chain's head (in a group commit's job: as the batch's appends so far left it). */
export async function scanLogHead(sql: Sql): Promise<LogHead | null> {
  const moved = sql.batch?.get<LogHead>(BATCH_HEAD);
  if (moved !== undefined) return moved;
  const head = await sql.get<LogHead>('SELECT position, hash FROM scan_log_head WHERE singleton = 1');
  return head ? { position: Number(head.position), hash: head.hash } : null;
}

// --- kiosk heads -------------------------------------------------------------

export interface KioskHeadRow {
  api_key_id: string;
  scanner_id: string;
  eid: string;
  position: number;
  hash: string;
  reported_at: string;
  contradiction: string | null;
}

/**
 * Keeps a head a kiosk reported (never refused), flagged when it contradicts an earlier head of the same
 * scanner: the same position with another hash, or a lower position. Returns the contradiction, if any.
 */
export async function recordKioskHead(tx: Sql, row: Omit<KioskHeadRow, 'contradiction'>): Promise<string | null> {
  const last = await tx.get<ReportedHead>(
    'SELECT position, hash, reported_at FROM kiosk_log_heads WHERE scanner_id = ? ORDER BY id DESC LIMIT 1',
    [row.scanner_id],
  );
  // Reported again unchanged (every minute while nothing is scanned): nothing new to keep, nothing more to read.
  if (last && Number(last.position) === row.position && last.hash === row.hash) return null;
  // The earlier heads that can contradict this one: the highest one, and any at the same position.
  const earlier = await tx.all<ReportedHead>(
    `SELECT position, hash, reported_at FROM kiosk_log_heads WHERE scanner_id = @scanner_id
       AND (position = @position OR position = (SELECT MAX(position) FROM kiosk_log_heads WHERE scanner_id = @scanner_id))
     ORDER BY id`,
    { scanner_id: row.scanner_id, position: row.position },
  );
  const contradiction = headContradiction(
    earlier.map((h) => ({ ...h, position: Number(h.position) })),
    { position: row.position, hash: row.hash },
  );
  await tx.run(
    `INSERT INTO kiosk_log_heads (api_key_id, scanner_id, eid, position, hash, reported_at, contradiction)
     VALUES (@api_key_id, @scanner_id, @eid, @position, @hash, @reported_at, @contradiction)`,
    { ...row, contradiction },
  );
  return contradiction;
}

// --- verification ------------------------------------------------------------

export interface ChainReport {
  ok: boolean;
  /** Rows checked (all of the chain; with an event, that event's rows among them). */
  rows: number;
  /** The chain's last good position and hash. */
  head: LogHead;
  broken: ChainBreak | null;
  /**
   * PostgreSQL: rows committed but not sealed yet (position NULL; with an event, that event's), not a break:
   * the sealer chains them within about a second. Always 0 on SQLite, where such a row is a break.
   */
  unsealed: number;
}

const PAGE = 2000;

/**
 * Walks the chain in position order: recomputes every row's hash, follows every link, checks the positions
 * are contiguous (a missing one: a row was deleted) and the head row (rows cut off the end). On SQLite, where
 * rows are chained as they are written, ids follow positions too: a row whose id is lower than the row before
 * it in the chain was moved (reordered), and a row without a position was written around the chain. On
 * PostgreSQL ids carry no order (rows are sealed after they commit, in whatever order they committed), and a
 * row without a position is one not sealed yet: counted in `unsealed`.
 */
export async function verifyScanLog(sql: Sql, eid: string | null = null): Promise<ChainReport> {
  const verifier = new ChainVerifier(nodeSha256Hex);
  const sqlite = sql.dialect === 'sqlite';
  let after = Number.MIN_SAFE_INTEGER;
  let lastId = 0;
  let inScope = 0;
  let broken: ChainBreak | null = null;
  outer: for (;;) {
    const page = await sql.all<Record<string, string | number | null> & { id: number }>(
      'SELECT * FROM scan_log WHERE position > ? ORDER BY position LIMIT ?',
      [after, PAGE],
    );
    for (const row of page) {
      const id = Number(row.id);
      const position = Number(row.position);
      after = position;
      if (eid === null || row.eid === eid) inScope++;
      broken = verifier.next({
        id,
        position,
        prev_hash: row.prev_hash as string | null,
        hash: row.hash as string | null,
        fields: chainFields({ ...row, position }, SCAN_LOG_CHAIN_FIELDS),
      });
      if (broken) break outer;
      if (sqlite && id < lastId) {
        // Out of id order: in id order this row comes after every row with a lower id.
        const before = await sql.get<{ n: number }>('SELECT COUNT(*) AS n FROM scan_log WHERE id < ?', [id]);
        broken = { kind: 'reordered', id, position, expected: Number(before?.n ?? 0) + 1 };
        break outer;
      }
      lastId = id;
    }
    if (page.length < PAGE) break;
  }
  let unsealed = 0;
  if (!broken && sqlite) {
    const unchained = await sql.get<{ id: number }>('SELECT id FROM scan_log WHERE position IS NULL ORDER BY id LIMIT 1');
    if (unchained) broken = { kind: 'unchained', id: Number(unchained.id) };
  } else if (!broken) {
    const count = await sql.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM scan_log WHERE position IS NULL${eid === null ? '' : ' AND eid = ?'}`,
      eid === null ? [] : [eid],
    );
    unsealed = Number(count?.n ?? 0);
  }
  broken ??= verifier.finish(await scanLogHead(sql));
  return { ok: broken === null, rows: eid === null ? verifier.rows : inScope, head: verifier.head(), broken, unsealed };
}

export interface KioskHeadsReport {
  ok: boolean;
  kiosks: number;
  heads: number;
  /** Every scanner whose heads contradict each other, with the first contradiction found. */
  contradictions: { scanner_id: string; api_key_id: string; id: number; reported_at: string; reason: string }[];
}

/** Checks every kept head against the earlier heads of the same scanner, in the order they were reported. */
export async function verifyKioskHeads(sql: Sql, eid: string | null = null): Promise<KioskHeadsReport> {
  const rows = await sql.all<KioskHeadRow & { id: number }>(
    `SELECT id, api_key_id, scanner_id, eid, position, hash, reported_at FROM kiosk_log_heads
     ${eid === null ? '' : 'WHERE scanner_id IN (SELECT scanner_id FROM kiosk_log_heads WHERE eid = @eid)'} ORDER BY id`,
    eid === null ? undefined : { eid },
  );
  // Per scanner: the hash seen at each position, and the highest position so far.
  const seen = new Map<string, { at: Map<number, ReportedHead>; top: ReportedHead }>();
  const contradictions: KioskHeadsReport['contradictions'] = [];
  const flagged = new Set<string>();
  for (const row of rows) {
    const head = { position: Number(row.position), hash: row.hash, reported_at: row.reported_at };
    const history = seen.get(row.scanner_id);
    if (!history) {
      seen.set(row.scanner_id, { at: new Map([[head.position, head]]), top: head });
      continue;
    }
    const same = history.at.get(head.position);
    const reason = headContradiction(same ? [same, history.top] : [history.top], head);
    if (reason !== null && !flagged.has(row.scanner_id)) {
      flagged.add(row.scanner_id);
      contradictions.push({
        scanner_id: row.scanner_id,
        api_key_id: row.api_key_id,
        id: Number(row.id),
        reported_at: row.reported_at,
        reason,
      });
    }
    if (!same) history.at.set(head.position, head);
    if (head.position > history.top.position) history.top = head;
  }
  return { ok: contradictions.length === 0, kiosks: seen.size, heads: rows.length, contradictions };
}
