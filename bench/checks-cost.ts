/**
 * (j) What attention notes and ID checks add to a check-in, measured in process so that the two sides alternate
 * within seconds of each other (docs/benchmarks.md "Attention notes and ID checks: what they add to a check-in"):
 * rounds of whole check-ins through the real check-in write job (services/check-in.ts, 32 in flight, durable
 * commits) and of the facts read alone (store/checkins.ts checkInFacts), with the type's attention note and ID check
 * (`age:18`) set and then removed, in alternating order. Prints medians and ratios, asserts nothing.
 */
import crypto from 'node:crypto';
import { createEvent } from '../issuer/admin/events.js';
import { newIdFactory } from '../issuer/admin/ids.js';
import { defaultTicketExpiry, issueTickets } from '../issuer/admin/issuance.js';
import type { ScannerCredential } from '../issuer/auth.js';
import type { DataDir } from '../issuer/data-dir.js';
import { setTicketTypeAttention } from '../issuer/services/attention-notes.js';
import { checkIn } from '../issuer/services/check-in.js';
import { loadSigningKey } from '../issuer/signing.js';
import { checkInFacts } from '../issuer/store/checkins.js';
import { setTypeIdCheck } from '../issuer/store/id-checks.js';
import type { SqlDatabase } from '../issuer/store/sql.js';
import { activeKid } from '../issuer/store/signing-keys.js';
import { addHours } from '../issuer/time.js';
import { parseIdCheck } from '../protocol/id-check.js';
import { createBenchScanners } from './bench-scanners.js';
import { percentiles } from './bench-kit.js';

const ROUNDS = 10;
const LANES = 32;
const FACT_READS = 300;

const fmt = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function measureChecksCost(database: SqlDatabase, dataDir: DataDir, iss: string, tickets = 40_000): Promise<void> {
  const now = new Date();
  const event = await createEvent(database, { name: 'Checks cost', date: addHours(now, 1), venue: 'Loopback Hall' }, newIdFactory(), now);
  const key = loadSigningKey(dataDir.keysDir, await activeKid(database.read));
  const issued = await issueTickets(
    database,
    { iss, event, key, nextId: newIdFactory(), now },
    Array.from({ length: tickets }, () => ({ exp: defaultTicketExpiry(event), ticketType: 'Standard' })),
  );
  const [scanner] = await createBenchScanners(database, event, 1, now);
  const credential: ScannerCredential = {
    apiKeyId: scanner!.apiKeyId,
    keyHash: '',
    scannerId: scanner!.scannerId,
    eid: event.eid,
    gateId: 'North',
    role: 'steward',
  };
  const setChecks = (on: boolean) =>
    database.write(async (tx) => {
      const at = new Date().toISOString();
      await setTicketTypeAttention(
        tx,
        event.eid,
        'Standard',
        on ? { attention: true, note: 'Green wristband' } : { attention: false, note: null },
        at,
      );
      await setTypeIdCheck(tx, event.eid, 'Standard', parseIdCheck(on ? 'age:18' : 'none')!, at);
    });
  const batch = Math.floor(tickets / (2 * ROUNDS));
  let next = 0;
  const rates: Record<'off' | 'on', number[]> = { off: [], on: [] };
  const reads: Record<'off' | 'on', number[]> = { off: [], on: [] };
  console.error(`(j) ${ROUNDS} rounds of ${fmt(batch)} check-ins each way, alternating, and ${FACT_READS} facts reads each way per round…`);
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      await setChecks(mode === 'on');
      const items = issued.slice(next, next + batch);
      next += batch;
      for (const ticket of items.slice(0, FACT_READS)) {
        const start = performance.now();
        await checkInFacts(database.read, ticket.tid, null);
        reads[mode].push(performance.now() - start);
      }
      let index = 0;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: LANES }, async () => {
          while (index < items.length) {
            const ticket = items[index++]!;
            const body = {
              tid: ticket.tid,
              eid: event.eid,
              scanned_at: new Date().toISOString(),
              scanner_id: scanner!.scannerId,
              idempotency_key: crypto.randomUUID(),
            };
            const result = await checkIn(database, credential, body, undefined);
            if (!result.ok || result.httpStatus !== 200) throw new Error(`(j) check-in failed: ${JSON.stringify(result)}`);
          }
        }),
      );
      rates[mode].push(items.length / ((performance.now() - start) / 1000));
    }
  }
  const off = percentiles(reads.off);
  const on = percentiles(reads.on);
  const rateOff = median(rates.off);
  const rateOn = median(rates.on);
  console.log('');
  console.log(
    `(j) attention note and ID check on a check-in (${database.dialect}, in process, ${ROUNDS} alternating rounds of ${fmt(batch)} each way, ${LANES} in flight, durable):`,
  );
  console.log('');
  console.log('| measurement | without | with | with / without |');
  console.log('|---|---|---|---|');
  console.log(
    `| whole check-ins through the write job, median of the rounds | ${fmt(rateOff)}/s | ${fmt(rateOn)}/s | ${fmt(rateOn / rateOff, 2)} |`,
  );
  console.log(
    `| the facts read (one statement), p50 / p99 | ${fmt(off.p50, 3)} / ${fmt(off.p99, 3)} ms | ${fmt(on.p50, 3)} / ${fmt(on.p99, 3)} ms | ${fmt(on.p50 / off.p50, 2)} (p50) |`,
  );
  console.log(`(rounds without: ${rates.off.map((r) => fmt(r)).join(', ')}; with: ${rates.on.map((r) => fmt(r)).join(', ')})`);
}
