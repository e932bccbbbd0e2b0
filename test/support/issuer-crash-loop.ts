/**
 * The issuer killed with SIGKILL in the middle of concurrent check-ins, again
 * and again (docs/benchmarks.md "Faults and bad input"). Each cycle starts
 * `issuer/server.ts` in a child process on the same data directory, lets
 * `concurrency` scanners check fresh tickets in, and kills it at a random
 * moment. After every kill, before the next start, the database file is
 * opened and checked:
 * - `PRAGMA integrity_check` is ok;
 * - every check-in acknowledged as `valid` is stored, with its idempotency key
 *   and `checked_in_at`;
 * - no ticket has two check-ins (nor two `valid` answers under different keys).
 * Requests the kill left unanswered are sent again (same key) to the next
 * process, as a kiosk's queue would: each gets one answer, and a replay of an
 * acknowledged one gets the same answer.
 *
 * Used by test/integration/issuer/crash-loop.test.ts (10 cycles) and
 * `npm run bench:crash -- --cycles 50`.
 */
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { openDatabase } from '../../issuer/store/database.js';

export interface IssuerProcess {
  url: string;
  process: ChildProcess;
  exited: Promise<number | null>;
}

/** How long each process lives before its SIGKILL when the caller does not say: a random time in this range. */
export const DEFAULT_KILL_AFTER_MS: readonly [number, number] = [150, 600];

/**
 * A ceiling on the check-ins one issuer process answers per second in this
 * loop (8 concurrent clients over loopback, durable commits), with room to
 * spare: on the 2-core machine of docs/benchmarks.md one cycle of at most
 * 600 ms took up to 1,478 tickets (about 2,500/s); the in-process issuer
 * benchmark saturates at about 2,800/s with 50 clients. A cycle cannot take
 * more tickets than this rate for its longest life.
 */
export const MAX_CHECK_INS_PER_SECOND = 5000;

/**
 * Fresh tickets enough for `cycles` cycles, whatever their number: each cycle
 * is given room for its longest life at the ceiling rate, so no run of few
 * cycles depends on the others being short (the loop throws when the tickets
 * run out before a kill).
 */
export function ticketsForCycles(cycles: number, killAfterMs: readonly [number, number] = DEFAULT_KILL_AFTER_MS): number {
  return cycles * Math.ceil((killAfterMs[1] / 1000) * MAX_CHECK_INS_PER_SECOND);
}

export interface CrashLoopOptions {
  cycles: number;
  /** The database file of the data directory the child serves. */
  databaseFile: string;
  startIssuer(): Promise<IssuerProcess>;
  /** Fresh tickets of the scanner's event, enough for every cycle: ticketsForCycles(cycles, killAfterMs). */
  tickets: readonly string[];
  eid: string;
  scanner: { apiKey: string; scannerId: string };
  concurrency?: number;
  /** How long each process lives before its SIGKILL: a random time in this range. */
  killAfterMs?: readonly [number, number];
  log?: (line: string) => void;
}

export interface CrashLoopReport {
  cycles: number;
  acknowledged: number;
  unansweredResent: number;
  checkInsStored: number;
}

interface SentCheckIn {
  tid: string;
  key: string;
  scannedAt: string;
  answer: string | null;
}

export async function runIssuerCrashLoop(options: CrashLoopOptions): Promise<CrashLoopReport> {
  const concurrency = options.concurrency ?? 8;
  const [minKill, maxKill] = options.killAfterMs ?? DEFAULT_KILL_AFTER_MS;
  const sent: SentCheckIn[] = [];
  let nextTicket = 0;
  let unansweredResent = 0;

  for (let cycle = 1; cycle <= options.cycles; cycle++) {
    const issuer = await options.startIssuer();
    // First the requests the previous kill left unanswered, with their own keys.
    const unanswered = sent.filter((checkIn) => checkIn.answer === null);
    for (const checkIn of unanswered) checkIn.answer = await post(issuer.url, options, checkIn);
    unansweredResent += unanswered.length;
    // A replay of an acknowledged check-in gets the same answer, byte for byte.
    const acknowledged = sent.filter((checkIn) => checkIn.answer !== null && JSON.parse(checkIn.answer).status === 'valid');
    const sample = acknowledged.slice(-3);
    for (const checkIn of sample) {
      const replay = await post(issuer.url, options, checkIn);
      if (replay !== checkIn.answer)
        throw new Error(`cycle ${cycle}: the replay of ${checkIn.tid} answered ${replay} instead of ${checkIn.answer}`);
    }

    let killed = false;
    /** A request that failed while the process was alive (e.g. a 429): the cycle is void, not a crash. */
    let failure: unknown = null;
    const kill = setTimeout(
      () => {
        killed = true;
        issuer.process.kill('SIGKILL');
      },
      minKill + Math.random() * (maxKill - minKill),
    );
    const client = async (): Promise<void> => {
      while (!killed && nextTicket < options.tickets.length) {
        const checkIn: SentCheckIn = {
          tid: options.tickets[nextTicket++]!,
          key: randomUUID(),
          scannedAt: new Date().toISOString(),
          answer: null,
        };
        sent.push(checkIn);
        try {
          checkIn.answer = await post(issuer.url, options, checkIn);
        } catch (error) {
          // After the kill: the process died with this request in flight, it stays unanswered.
          if (!killed) failure ??= error;
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, client));
    clearTimeout(kill);
    if (failure !== null) {
      issuer.process.kill('SIGKILL');
      await issuer.exited;
      throw new Error(
        `cycle ${cycle}: a check-in failed before the kill (the loop needs every request answered until then): ${String(failure)}`,
      );
    }
    // Every cycle must end with the kill landing mid-batch, not with the tickets running out first.
    if (!killed) {
      issuer.process.kill('SIGKILL');
      await issuer.exited;
      throw new Error(
        `cycle ${cycle}: the tickets ran out before the kill (${options.tickets.length} for ${options.cycles} cycles); give the loop more tickets (ticketsForCycles)`,
      );
    }
    await issuer.exited;

    const stored = verifyAfterKill(options.databaseFile, sent, cycle);
    options.log?.(
      `cycle ${cycle}: ${sent.filter((c) => c.answer !== null).length} answered so far, ${sent.filter((c) => c.answer === null).length} in flight at the kill, ${stored} check-ins stored, integrity ok`,
    );
  }
  const final = await options.startIssuer();
  const unanswered = sent.filter((checkIn) => checkIn.answer === null);
  for (const checkIn of unanswered) checkIn.answer = await post(final.url, options, checkIn);
  unansweredResent += unanswered.length;
  final.process.kill('SIGKILL');
  await final.exited;
  const stored = verifyAfterKill(options.databaseFile, sent, options.cycles + 1);
  return {
    cycles: options.cycles,
    acknowledged: sent.filter((c) => c.answer !== null && JSON.parse(c.answer).status === 'valid').length,
    unansweredResent,
    checkInsStored: stored,
  };
}

/** The checks after a kill; returns the number of stored check-ins. Throws on any violation. */
function verifyAfterKill(databaseFile: string, sent: readonly SentCheckIn[], cycle: number): number {
  const db = openDatabase(databaseFile, { readonly: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new Error(`cycle ${cycle}: integrity_check says ${String(integrity)}`);
    const rows = db.prepare('SELECT tid, idempotency_key, checked_in_at FROM checkins').all() as {
      tid: string;
      idempotency_key: string;
      checked_in_at: string;
    }[];
    const byTid = new Map<string, { idempotency_key: string; checked_in_at: string }>();
    for (const row of rows) {
      if (byTid.has(row.tid)) throw new Error(`cycle ${cycle}: ticket ${row.tid} has two check-ins`);
      byTid.set(row.tid, row);
    }
    const validKeys = new Map<string, string>();
    for (const checkIn of sent) {
      if (checkIn.answer === null) continue;
      const answer = JSON.parse(checkIn.answer) as { status?: string; ticket?: { checked_in_at?: string } };
      if (answer.status !== 'valid') continue;
      const stored = byTid.get(checkIn.tid);
      if (!stored) throw new Error(`cycle ${cycle}: the acknowledged check-in of ${checkIn.tid} is missing`);
      if (stored.idempotency_key !== checkIn.key || stored.checked_in_at !== answer.ticket?.checked_in_at) {
        throw new Error(`cycle ${cycle}: the check-in of ${checkIn.tid} is not the acknowledged one`);
      }
      const other = validKeys.get(checkIn.tid);
      if (other !== undefined && other !== checkIn.key) throw new Error(`cycle ${cycle}: ticket ${checkIn.tid} was answered valid twice`);
      validKeys.set(checkIn.tid, checkIn.key);
    }
    return rows.length;
  } finally {
    db.close();
  }
}

async function post(url: string, options: CrashLoopOptions, checkIn: SentCheckIn): Promise<string> {
  const response = await fetch(`${url}/api/v1/tickets/check-in`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.scanner.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      tid: checkIn.tid,
      eid: options.eid,
      scanned_at: checkIn.scannedAt,
      scanner_id: options.scanner.scannerId,
      idempotency_key: checkIn.key,
    }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`check-in of ${checkIn.tid} answered ${response.status} ${text}`);
  return text;
}
