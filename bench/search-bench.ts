/**
 * Ticket search (docs/protocol.md "Ticket search"): p50 and p99 of the issuer's search, the service the route
 * runs (issuer/services/ticket-search.ts), for one event of 100,000 named tickets on SQLite (a real file) and on
 * PostgreSQL (a throwaway cluster, test/support/postgres-cluster.ts). Prints figures, asserts nothing.
 *
 *   npm run bench:search [-- --tickets 100000 --searches 300 --store sqlite|postgres|both]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ticketSearch } from '../issuer/services/ticket-search.js';
import { migratePostgres } from '../issuer/store/postgres-migrations.js';
import { openPostgresDatabase } from '../issuer/store/postgres-database.js';
import { insertEvent } from '../issuer/store/events.js';
import { insertActiveKey } from '../issuer/store/signing-keys.js';
import type { SqlDatabase } from '../issuer/store/sql.js';
import { openSqliteDatabase } from '../issuer/store/sqlite-database.js';
import { insertTickets, type NewTicket } from '../issuer/store/tickets.js';
import { setTypeHandouts } from '../issuer/store/handouts.js';
import { searchTickets } from '../issuer/store/ticket-search.js';
import { idQuery, MAX_SEARCH_RESULTS, searchTokens } from '../protocol/search-name.js';
import { startPostgresCluster } from '../test/support/postgres-cluster.js';
import { numberOption, percentiles, textOption } from './bench-kit.js';

const FIRST = ['Zoë', 'Anna', 'Jean-Luc', 'Mohammed', 'Łukasz', 'Søren', 'Yuki', 'Fatima', 'Pierre', 'Ángel', 'Chloé', 'Björn'];
const LAST = ['Ångström', 'Müller', 'García', 'Nguyễn', 'O’Brien', 'Dubois', 'Kowalski', 'Rossi', 'Smith', 'Öztürk', 'Papadopoulos'];
/** What a supervisor types: whole and partial words, no accents, a short id, and a word no ticket has. */
const QUERIES = ['zoe ang', 'muller', 'jean luc', 'ozt', 'lukasz kow', 'a', 'garcia chloe', 'xqzv', 'nguyen 42', 'SOREN'];

function ticketsOf(eid: string, count: number): NewTicket[] {
  const issuedAt = new Date().toISOString();
  const exp = Math.floor(Date.now() / 1000) + 30 * 86_400;
  return Array.from({ length: count }, (_, i) => ({
    tid: `01JBENCH${String(i).padStart(18, '0')}`,
    eid,
    kid: 'bench-key',
    holder_name: `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]} ${i}`,
    ticket_type: i % 10 === 0 ? 'VIP' : 'Standard',
    issued_at: issuedAt,
    exp,
    qr: `bench-${i}`,
    // docs/protocol.md "Ticket search": results carry handouts and a party's counts; some tickets have both.
    ...(i % 7 === 0 ? { party: 4 } : {}),
    ...(i % 11 === 0 ? { handouts: [{ item: 'T-shirt M', count: 1 }] } : {}),
  }));
}

async function fill(db: SqlDatabase, count: number): Promise<string> {
  const eid = '01JBENCHEVENT0000000000000';
  const now = new Date().toISOString();
  await db.write(async (tx) => {
    await insertActiveKey(tx, { kid: 'bench-key', public_key: 'AAAA', valid_from: now });
    await insertEvent(tx, {
      eid,
      name: 'Bench',
      date: now,
      venue: 'Hall',
      ends_at: now,
      created_at: now,
      entry_policy: 'single',
      capacity: null,
    });
  });
  const tickets = ticketsOf(eid, count);
  for (let start = 0; start < tickets.length; start += 5000) {
    await db.write((tx) => insertTickets(tx, tickets.slice(start, start + 5000)));
  }
  // The VIP type's items, and a wristband given to every third VIP ticket (the page's handouts are read with it).
  await db.write(async (tx) => {
    await setTypeHandouts(
      tx,
      eid,
      'VIP',
      [
        { item: 'wristband', count: 1 },
        { item: 'drink voucher', count: 2 },
      ],
      now,
    );
    for (const ticket of tickets.filter((_, i) => i % 30 === 0))
      await tx.run(
        `INSERT INTO handouts (hid, eid, tid, item, status, given_at, received_at, scanner_id, scanner_name, api_key_id)
         VALUES (?, ?, ?, 'wristband', 'given', ?, ?, 'bench-scanner', 'Kiosk 1', 'bench-key')`,
        [`h-${ticket.tid}`, eid, ticket.tid, now, now],
      );
  });
  return eid;
}

async function measure(store: string, db: SqlDatabase, eid: string, searches: number): Promise<void> {
  const caller = { eid, role: 'supervisor' as const };
  const now = Math.floor(Date.now() / 1000);
  for (const query of QUERIES) await ticketSearch(db.read, caller, query, now); // warm the caches
  const samples: number[] = [];
  const byQuery = new Map<string, number[]>(QUERIES.map((query) => [query, []]));
  // The matching statement alone, run right after each search (so both see the same load): the difference is what
  // a page's attention, handouts and party cost (services/ticket-extras.ts).
  const rowsOnly: number[] = [];
  for (let i = 0; i < searches; i++) {
    const query = QUERIES[i % QUERIES.length]!;
    const started = performance.now();
    await ticketSearch(db.read, caller, query, now);
    const took = performance.now() - started;
    samples.push(took);
    byQuery.get(query)!.push(took);
    const id = idQuery(query);
    const rowsStarted = performance.now();
    await searchTickets(db.read, {
      eid,
      tokens: searchTokens(query),
      tid: id !== null && 'tid' in id ? id.tid : undefined,
      shortId: id !== null && 'shortId' in id ? id.shortId : undefined,
      limit: MAX_SEARCH_RESULTS + 1,
    });
    rowsOnly.push(performance.now() - rowsStarted);
  }
  const { p50, p99, max } = percentiles(samples);
  console.log(`${store}: ${searches} searches, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
  const rows = percentiles(rowsOnly);
  console.log(`  the matching statement alone: p50 ${rows.p50.toFixed(1)} ms, p99 ${rows.p99.toFixed(1)} ms`);
  const medians = [...byQuery].map(([query, times]) => `${query} ${percentiles(times).p50.toFixed(1)}`);
  console.log(`  p50 per query (ms): ${medians.join(' | ')}`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const count = numberOption(argv, '--tickets', 100_000);
  const searches = numberOption(argv, '--searches', 300);
  const store = textOption(argv, '--store', 'both');
  if (store !== 'sqlite' && store !== 'postgres' && store !== 'both') throw new Error('--store needs sqlite, postgres or both');
  console.log(`ticket search, ${count} tickets in one event, queries: ${QUERIES.join(' | ')}`);
  if (store !== 'postgres') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'search-bench-'));
    const db = openSqliteDatabase(path.join(dir, 'issuer.db'));
    try {
      await measure('SQLite', db, await fill(db, count), searches);
    } finally {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  if (store !== 'sqlite') {
    const cluster = await startPostgresCluster({ database: 'issuer' });
    const db = await openPostgresDatabase(cluster.url);
    try {
      await migratePostgres(db);
      const eid = await fill(db, count);
      await db.read.run('VACUUM ANALYZE tickets');
      await measure('PostgreSQL', db, eid, searches);
    } finally {
      await db.close();
      await cluster.stop();
    }
  }
}

await main();
