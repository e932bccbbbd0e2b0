/**
 * (f) What reading live occupancy costs (docs/protocol.md "Occupancy"; the goal: under 1 ms with
 * 100,000 check-ins and exits in the store). A fresh re-entry event gets N tickets, each checked in through
 * the real check-in write job (services/check-in.ts: state, history and counters in one transaction), half
 * of them then scanned out; then the dashboard's and the heartbeat's reads are timed, one at a time, beside
 * the count the counters spare us (a COUNT over the tickets inside), for contrast.
 */
import crypto from 'node:crypto';
import { createEvent } from '../issuer/admin/events.js';
import { newIdFactory } from '../issuer/admin/ids.js';
import { defaultTicketExpiry, issueTickets } from '../issuer/admin/issuance.js';
import type { ScannerCredential } from '../issuer/auth.js';
import type { DataDir } from '../issuer/data-dir.js';
import { checkIn } from '../issuer/services/check-in.js';
import { eventOccupancy } from '../issuer/services/door.js';
import { loadSigningKey } from '../issuer/signing.js';
import { insideNow } from '../issuer/store/checkins.js';
import type { SqlDatabase } from '../issuer/store/sql.js';
import { activeKid } from '../issuer/store/signing-keys.js';
import { addHours } from '../issuer/time.js';
import { createBenchScanners } from './bench-scanners.js';
import { percentiles } from './bench-kit.js';

const fmt = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export async function measureOccupancyCost(database: SqlDatabase, dataDir: DataDir, iss: string, tickets = 100_000): Promise<void> {
  const now = new Date();
  const event = await createEvent(
    database,
    { name: 'Occupancy', date: addHours(now, 1), venue: 'Loopback Hall', entryPolicy: 'reentry' },
    newIdFactory(),
    now,
  );
  const key = loadSigningKey(dataDir.keysDir, await activeKid(database.read));
  const issued = await issueTickets(
    database,
    { iss, event, key, nextId: newIdFactory(), now },
    Array.from({ length: tickets }, () => ({ exp: defaultTicketExpiry(event), ticketType: 'Standard' })),
  );
  const [scanner] = await createBenchScanners(database, event, 1, now);
  const gates = ['North', 'South', 'East', 'West'];
  const credential = (gate: string): ScannerCredential => ({
    apiKeyId: scanner!.apiKeyId,
    keyHash: '',
    scannerId: scanner!.scannerId,
    eid: event.eid,
    gateId: gate,
    role: 'steward',
  });
  const scan = async (tid: string, action: 'entry' | 'exit', index: number): Promise<void> => {
    const gate = gates[index % gates.length]!;
    const body = {
      tid,
      eid: event.eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner!.scannerId,
      idempotency_key: crypto.randomUUID(),
      action,
    };
    const result = await checkIn(database, credential(gate), body, undefined);
    if (!result.ok || result.httpStatus !== 200) throw new Error(`(f) setup scan failed: ${JSON.stringify(result)}`);
  };
  console.error(`(f) ${fmt(tickets)} check-ins and ${fmt(tickets / 2)} exits through the check-in write job…`);
  const fillStart = performance.now();
  const lanes = database.dialect === 'postgres' ? 32 : 64;
  const run = async (items: readonly { tid: string }[], action: 'entry' | 'exit'): Promise<void> => {
    let next = 0;
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (next < items.length) {
          const index = next++;
          await scan(items[index]!.tid, action, index);
        }
      }),
    );
  };
  await run(issued, 'entry');
  await run(issued.slice(0, tickets / 2), 'exit');
  const fillSeconds = (performance.now() - fillStart) / 1000;

  const time = async (read: () => Promise<unknown>, rounds: number): Promise<{ p50: number; p99: number }> => {
    for (let i = 0; i < 50; i++) await read();
    const samples: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const start = performance.now();
      await read();
      samples.push(performance.now() - start);
    }
    return percentiles(samples);
  };
  const occupancy = await eventOccupancy(database.read, event.eid);
  const dashboard = await time(() => eventOccupancy(database.read, event.eid), 2_000);
  const heartbeat = await time(() => insideNow(database.read, event.eid), 2_000);
  const counted = await time(
    () =>
      database.read.get(
        "SELECT count(*) AS inside FROM checkins c JOIN tickets t ON t.tid = c.tid WHERE t.eid = ? AND c.state = 'inside'",
        [event.eid],
      ),
    50,
  );
  console.log('');
  console.log(
    `(f) occupancy (${database.dialect}), ${fmt(tickets)} check-ins and ${fmt(tickets / 2)} exits (stored in ${fmt(fillSeconds, 1)} s, ${fmt((tickets * 1.5) / fillSeconds)} scans/s through the write job): inside ${fmt(occupancy.inside)} over ${occupancy.by_gate.length} gates`,
  );
  console.log('');
  console.log('| read | p50 | p99 | goal |');
  console.log('|---|---|---|---|');
  console.log(
    `| per gate and total (dashboard, event occupancy) | ${fmt(dashboard.p50, 3)} ms | ${fmt(dashboard.p99, 3)} ms | < 1 ms: ${dashboard.p99 < 1 ? 'met' : 'NOT met'} (p99) |`,
  );
  console.log(
    `| total inside (heartbeat, capacity check) | ${fmt(heartbeat.p50, 3)} ms | ${fmt(heartbeat.p99, 3)} ms | < 1 ms: ${heartbeat.p99 < 1 ? 'met' : 'NOT met'} (p99) |`,
  );
  console.log(
    `| for contrast: COUNT of the tickets inside | ${fmt(counted.p50, 3)} ms | ${fmt(counted.p99, 3)} ms | (what the counters spare) |`,
  );
}
