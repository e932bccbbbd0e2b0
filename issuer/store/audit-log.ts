/**
 * The scan_log's hash chain and the kiosks' reported chain heads (docs/issuer.md "Audit: tamper-evident
 * logs"). The encoding is protocol/audit-chain.ts; this module knows the SQL.
 *
 * Appending (appendChained): read the head row, hash the new rows onto it, insert them with their positions
 * and move the head, all in the caller's write transaction. On SQLite the write lock serialises writers. On
 * PostgreSQL the head is read FOR UPDATE: that row lock makes concurrent appends take turns, and since a
 * writer draws its scan_log id only after it holds the lock, ids grow in chain order too. Callers append as
 * the last statement of their job, so the lock is held for as short a time as possible.
 */
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
import type { Sql } from './sql.js';

/** A scan_log row before it is chained (origin: its place in another copy's chain, for a row an import re-chained). */
export interface ScanLogContent {
  at: string;
  scanned_at: string | null;
  tid: string | null;
  eid: string | null;
  scanner_id: string | null;
  api_key_id: string | null;
  gate_id: string | null;
  idempotency_key: string | null;
  outcome: string;
  details: string | null;
  origin?: string | null;
}

export interface ChainColumns {
  position: number;
  prev_hash: string;
  hash: string;
}

const CONTENT_COLUMNS = ['at', 'scanned_at', 'tid', 'eid', 'scanner_id', 'api_key_id', 'gate_id', 'idempotency_key', 'outcome', 'details'];
const INSERT_COLUMNS = [...CONTENT_COLUMNS, 'origin', 'position', 'prev_hash', 'hash'];

/** The row's chain columns, hashed onto `head`. */
export function chainOnto(head: LogHead, row: ScanLogContent): ChainColumns {
  const position = head.position + 1;
  const values = { ...row, origin: row.origin ?? null, position };
  return { position, prev_hash: head.hash, hash: chainHash(head.hash, chainFields(values, SCAN_LOG_CHAIN_FIELDS)) };
}

/** The head, locked until the transaction ends on PostgreSQL. */
async function lockHead(tx: Sql): Promise<LogHead> {
  const sql = `SELECT position, hash FROM scan_log_head WHERE singleton = 1${tx.dialect === 'postgres' ? ' FOR UPDATE' : ''}`;
  const head = await tx.get<LogHead>(sql);
  if (!head) throw new Error('scan_log_head has no row: the database was not migrated to version 4');
  return { position: Number(head.position), hash: head.hash };
}

const tuple = `(${INSERT_COLUMNS.map(() => '?').join(', ')})`;
const BATCH = 300;

/**
 * Appends rows to scan_log at the end of the chain, in order, in the caller's transaction. A row that already
 * carries chain columns that continue this chain exactly (`keep`: an import into an empty or unchanged copy)
 * keeps them; every other row gets the next position here.
 */
export async function appendChained(tx: Sql, rows: readonly (ScanLogContent & Partial<ChainColumns>)[]): Promise<void> {
  if (rows.length === 0) return;
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
  if (tx.dialect === 'postgres' && chained.length === 1) {
    // One round trip for the insert and the head (the common case: a check-in).
    const row = chained[0]!;
    await tx.run(
      `WITH appended AS (INSERT INTO scan_log (${INSERT_COLUMNS.join(', ')}) VALUES ${tuple})
       UPDATE scan_log_head SET position = ?, hash = ? WHERE singleton = 1`,
      [...values(row), head.position, head.hash],
    );
    return;
  }
  for (let i = 0; i < chained.length; i += BATCH) {
    const batch = chained.slice(i, i + BATCH);
    await tx.run(`INSERT INTO scan_log (${INSERT_COLUMNS.join(', ')}) VALUES ${batch.map(() => tuple).join(', ')}`, batch.flatMap(values));
  }
  await tx.run('UPDATE scan_log_head SET position = ?, hash = ? WHERE singleton = 1', [head.position, head.hash]);
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

/** The same on PostgreSQL (migratePostgres), in its migration transaction. */
export async function chainUnchainedRows(tx: Sql): Promise<number> {
  let last = await lockHead(tx);
  let count = 0;
  for (;;) {
    const page = await tx.all<ScanLogContent & { id: number }>('SELECT * FROM scan_log WHERE position IS NULL ORDER BY id LIMIT 1000');
    for (const row of page) {
      const own = chainOnto(last, row);
      await tx.run('UPDATE scan_log SET position = ?, prev_hash = ?, hash = ? WHERE id = ?', [
        own.position,
        own.prev_hash,
        own.hash,
        row.id,
      ]);
      last = { position: own.position, hash: own.hash };
      count++;
    }
    if (page.length < 1000) break;
  }
  await tx.run('UPDATE scan_log_head SET position = ?, hash = ? WHERE singleton = 1', [last.position, last.hash]);
  return count;
}

export async function scanLogHead(sql: Sql): Promise<LogHead | null> {
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
  // The earlier heads that can contradict this one: the highest one, and any at the same position.
  const earlier = await tx.all<ReportedHead>(
    `SELECT position, hash, reported_at FROM kiosk_log_heads WHERE scanner_id = @scanner_id
       AND (position = @position OR position = (SELECT MAX(position) FROM kiosk_log_heads WHERE scanner_id = @scanner_id))
     ORDER BY id`,
    { scanner_id: row.scanner_id, position: row.position },
  );
  const last = await tx.get<ReportedHead>(
    'SELECT position, hash, reported_at FROM kiosk_log_heads WHERE scanner_id = ? ORDER BY id DESC LIMIT 1',
    [row.scanner_id],
  );
  // Reported again unchanged (every minute while nothing is scanned): nothing new to keep.
  if (last && Number(last.position) === row.position && last.hash === row.hash) return null;
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
}

const PAGE = 2000;

/** Recomputes every row's hash, follows every link, checks positions are contiguous in id order and the head row. */
export async function verifyScanLog(sql: Sql, eid: string | null = null): Promise<ChainReport> {
  const verifier = new ChainVerifier();
  let after = 0;
  let inScope = 0;
  let broken: ChainBreak | null = null;
  outer: for (;;) {
    const page = await sql.all<Record<string, string | number | null> & { id: number }>(
      'SELECT * FROM scan_log WHERE id > ? ORDER BY id LIMIT ?',
      [after, PAGE],
    );
    for (const row of page) {
      after = Number(row.id);
      if (eid === null || row.eid === eid) inScope++;
      broken = verifier.next({
        id: Number(row.id),
        position: row.position === null ? null : Number(row.position),
        prev_hash: row.prev_hash as string | null,
        hash: row.hash as string | null,
        fields: chainFields({ ...row, position: row.position === null ? null : Number(row.position) }, SCAN_LOG_CHAIN_FIELDS),
      });
      if (broken) break outer;
    }
    if (page.length < PAGE) break;
  }
  broken ??= verifier.finish(await scanLogHead(sql));
  if (broken?.kind === 'gap') {
    // The missing position may be further on: then rows were moved, not deleted.
    const later = await sql.get<{ id: number }>('SELECT id FROM scan_log WHERE position = ?', [broken.missing]);
    if (later) broken = { kind: 'reordered', id: broken.id, position: broken.position, expected: broken.missing };
  }
  return { ok: broken === null, rows: eid === null ? verifier.rows : inScope, head: verifier.head(), broken };
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
