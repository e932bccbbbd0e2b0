/**
 * The writes of one change, gathered while it is decided and sent at its end (docs/issuer.md "The check-in on
 * PostgreSQL: two round trips"). SQLite runs them one by one in the write job's transaction, as they would have
 * run before. PostgreSQL sends them as ONE statement: each write a data-modifying CTE, so all of them commit
 * together or none does, in one round trip, even outside an explicit transaction.
 *
 * The SQL only carries data: what to write is decided in TypeScript before. Two conditions travel with it:
 * - `expectOne`: a compare-and-set (`UPDATE … WHERE version = v`) that must change exactly one row. On SQLite
 *   the runner throws WriteConflict; on PostgreSQL the statement calls issuer_expect_one_row() (migration 18),
 *   which raises the same serialization-failure SQLSTATE, so the whole statement, every write in it, is undone
 *   and the job runs again on the new state (docs/protocol.md "One state per ticket, exact under concurrency").
 * - `onlyAfter`: a write made only if an earlier one of the batch changed a row (a webhook message is stored
 *   only when an endpoint took it). Its SQL is an `INSERT … SELECT …` without WHERE: the runner adds the
 *   condition on PostgreSQL and skips it on SQLite.
 */
import { WriteConflict, type Sql, type SqlParams, type SqlValue } from './sql.js';

export interface Write {
  sql: string;
  params: SqlParams;
  /** What the write changes, named in the conflict error when it did not change exactly one row. */
  expectOne?: string;
  /** Made only when this earlier write of the same batch changed at least one row. */
  onlyAfter?: Write;
}

/** A step that needs to see what it reads (SQLite's hash-chain append): runs in order, on its own. */
export type WriteStep = (tx: Sql) => Promise<void>;

export class WriteBatch {
  private readonly entries: (Write | WriteStep)[] = [];

  add(write: Write): Write {
    this.entries.push(write);
    return write;
  }

  addStep(step: WriteStep): void {
    this.entries.push(step);
  }

  get size(): number {
    return this.entries.length;
  }

  /** Runs every write, in the caller's transaction (or, on PostgreSQL, as one autocommitted statement). */
  async run(tx: Sql): Promise<void> {
    const writes = this.entries.filter((entry): entry is Write => typeof entry !== 'function');
    if (tx.dialect === 'postgres' && writes.length === this.entries.length && writes.length > 1) {
      const { sql, params } = oneStatement(writes);
      await tx.get(sql, params);
      return;
    }
    const changed = new Map<Write, number>();
    for (const entry of this.entries) {
      if (typeof entry === 'function') {
        await entry(tx);
        continue;
      }
      if (entry.onlyAfter !== undefined && !changed.get(entry.onlyAfter)) continue;
      const { changes } = await tx.run(entry.sql, entry.params);
      changed.set(entry, changes);
      if (entry.expectOne !== undefined && changes !== 1) throw new WriteConflict(entry.expectOne);
    }
  }
}

/**
 * The writes as one PostgreSQL statement: `WITH w0 AS (… RETURNING 1), w1 AS (…), … SELECT …`. Every CTE runs
 * to its end whether or not it is read; the final SELECT asserts the compare-and-sets. Each write's placeholders
 * get the prefix `w<i>_`, so equal names in two writes stay two values.
 */
export function oneStatement(writes: readonly Write[]): { sql: string; params: Record<string, SqlValue> } {
  const params: Record<string, SqlValue> = {};
  const index = new Map(writes.map((write, i) => [write, i]));
  const ctes = writes.map((write, i) => {
    let sql = prefixed(write.sql, write.params, `w${i}_`, params);
    if (write.onlyAfter !== undefined) {
      const after = index.get(write.onlyAfter);
      if (after === undefined || after >= i) throw new Error('a write may only depend on an earlier write of its batch');
      sql += ` WHERE EXISTS (SELECT 1 FROM w${after})`;
    }
    return `w${i} AS (${sql} RETURNING 1)`;
  });
  const checks = writes.flatMap((write, i) => {
    if (write.expectOne === undefined) return [];
    params[`w${i}_expect`] = write.expectOne;
    return [`issuer_expect_one_row((SELECT count(*) FROM w${i}), @w${i}_expect)`];
  });
  return { sql: `WITH ${ctes.join(',\n')}\nSELECT ${checks.length === 0 ? '1' : checks.join(', ')} AS done`, params };
}

/** Quoted literals, quoted identifiers and comments (left alone), or a placeholder: `?` or `@name`. */
const TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|\?|@([A-Za-z_][A-Za-z0-9_]*)/g;

/** `sql` with every placeholder renamed to `@<prefix>…`, its values added to `into`. */
function prefixed(sql: string, params: SqlParams, prefix: string, into: Record<string, SqlValue>): string {
  let position = 0;
  const positional = Array.isArray(params);
  const text = sql.replace(TOKENS, (token: string, name: string | undefined) => {
    if (token === '?') {
      if (!positional) throw new Error('a write mixes ? with named values');
      const key = `${prefix}${position}`;
      into[key] = (params as readonly SqlValue[])[position++] ?? null;
      return `@${key}`;
    }
    if (name === undefined) return token;
    if (positional) throw new Error(`a write has the named placeholder @${name} but positional values`);
    const value = (params as Readonly<Record<string, SqlValue>>)[name];
    if (value === undefined) throw new Error(`missing named parameter @${name}`);
    into[`${prefix}${name}`] = value;
    return `@${prefix}${name}`;
  });
  if (positional && position !== (params as readonly SqlValue[]).length) {
    throw new Error(`a write has ${position} ? placeholders but ${(params as readonly SqlValue[]).length} values`);
  }
  return text;
}
