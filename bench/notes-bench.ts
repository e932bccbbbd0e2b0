/**
 * Attention notes sync (docs/protocol.md "Attention notes (project extension)"; figures in docs/benchmarks.md
 * "Attention notes sync"): a kiosk's first sync of N tickets with a note, page by page at the default limit, from
 * the built CLI's `serve` on loopback, over real HTTP. On SQLite, and on a throwaway PostgreSQL cluster
 * (test/support/postgres-cluster.ts) when its binaries are installed. Three figures: the HTTP pages alone (gzip,
 * as the kiosk asks), the same pages for a client that does not accept gzip (bytes on the wire), and the kiosk's
 * whole sync (main/kiosk/sync/notes.ts NotesSync, its real IssuerClient, each page written into a fresh real
 * kiosk.db by the kiosk's store) with the list's size on the kiosk's disk. Prints time and bytes, asserts nothing.
 *
 *   npm run bench:notes [-- --notes 100000 --store sqlite|postgres|both --handouts 0|1]
 *
 * With `--handouts 1` (docs/protocol.md "Handouts (project extension)"; docs/benchmarks.md "Handout list sync") every
 * ticket also has its own item, the VIP type two items, and every fourth ticket a handout given, so each page carries
 * the handout rows too.
 */
import { spawn, execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isNotesPage, NOTES_PAGE_DEFAULT, type NotesPage } from '../protocol/attention.js';
import { decodeSetupCode } from '../protocol/setup-code.js';
import type { DiscoveryDocument } from '../protocol/index.js';
import { LocalStore, type Enrollment } from '../main/kiosk/store/local-store.js';
import { IssuerClient } from '../main/kiosk/sync/issuer-client.js';
import { NotesSync } from '../main/kiosk/sync/notes.js';
import { startPostgresCluster } from '../test/support/postgres-cluster.js';
import { numberOption, textOption } from './bench-kit.js';
import { withIssuer } from '../issuer/admin/issuer-context.js';

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'issuer', 'cli.js');
const run = promisify(execFile);
const GOAL_MS = 2000;
const GOAL_BYTES = 5 * 1024 * 1024;

async function cli<T>(args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [CLI, ...args, '--json'], { maxBuffer: 512 * 1024 * 1024 });
  return JSON.parse(stdout) as T;
}

function serve(data: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [
    CLI,
    'serve',
    '--data',
    data,
    '--plain-http',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--scanner-rpm',
    '100000',
  ]);
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = / serving \S+ on (\S+) /.exec(stderr);
      if (match && stderr.includes('Press Ctrl+C to stop.')) resolve({ url: match[1]!, stop: () => child.kill('SIGTERM') });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
}

/** Varied notes of a realistic length, and one ticket in five flagged. */
function csvOf(count: number): string {
  const notes = ['Wheelchair user: side door', 'Allergy: nuts', 'Press, escort to desk', 'Guest of the artist', 'Interpreter booked'];
  const lines = ['holder_name,ticket_type,expires_at,attention,note'];
  for (let i = 0; i < count; i++)
    lines.push(`Guest ${i},${i % 10 === 0 ? 'VIP' : 'Standard'},,${i % 5 === 0 ? 1 : 0},"${notes[i % notes.length]} ${i}"`);
  return lines.join('\n');
}

async function measure(store: string, data: string, database: string[], count: number, handouts: boolean): Promise<void> {
  await cli(['init', '--data', data, ...database, '--base-url', 'http://127.0.0.1:8080', '--name', 'Notes bench']);
  const event = await cli<{ eid: string }>([
    'event',
    'create',
    '--data',
    data,
    '--name',
    'Bench',
    '--date',
    new Date(Date.now() + 86_400_000).toISOString(),
    '--venue',
    'Hall',
  ]);
  const csv = path.join(data, '..', 'notes.csv');
  fs.writeFileSync(csv, csvOf(count));
  const issueStart = performance.now();
  await cli(['ticket', 'import', '--data', data, '--event', event.eid, '--csv', csv]);
  const issued = performance.now() - issueStart;
  await cli([
    'event',
    'ticket-type',
    'set',
    '--data',
    data,
    '--event',
    event.eid,
    '--type',
    'VIP',
    '--attention',
    '--note',
    'Green wristband',
  ]);
  if (handouts) {
    await cli([
      'event',
      'ticket-type',
      'set',
      '--data',
      data,
      '--event',
      event.eid,
      '--type',
      'VIP',
      '--handout',
      'wristband',
      '--handout',
      '2 drink voucher',
    ]);
    // Straight into the store, in one write job: `ticket update` per ticket would take the bench hours.
    await withIssuer(data, ({ database: db }) =>
      db.write(async (tx) => {
        await tx.run('UPDATE tickets SET handouts = ? WHERE eid = ?', [JSON.stringify([{ item: 'T-shirt M', count: 1 }]), event.eid]);
        await tx.run(
          `INSERT INTO handouts (hid, eid, tid, item, status, reason, given_at, received_at, scanner_id, scanner_name, gate_id, api_key_id, staff_id)
           SELECT 'h-' || tid, eid, tid, 'T-shirt M', 'given', NULL, ?, ?, 'bench', 'Bench door', 'North', 'bench', NULL
           FROM tickets WHERE eid = ? AND note_seq % 4 = 0`,
          [new Date().toISOString(), new Date().toISOString(), event.eid],
        );
      }),
    );
  }
  const setup = await cli<{ setup_qr: string }>(['scanner', 'setup', '--data', data, '--event', event.eid]);
  const server = await serve(data);
  try {
    const enrolled = await fetch(`${server.url}/api/v1/scanners/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: decodeSetupCode(setup.setup_qr).token, scanner_id: crypto.randomUUID() }),
    });
    const { api_key } = (await enrolled.json()) as { api_key: string };
    const syncOnce = async (
      gzip = true,
    ): Promise<{ ms: number; bytes: number; wire: number; rows: number; pages: number; handoutRows: number }> => {
      const started = performance.now();
      let bytes = 0;
      let wire = 0;
      let rows = 0;
      let pages = 0;
      let handoutRows = 0;
      let since: string | null = null;
      for (;;) {
        const response: Response = await fetch(`${server.url}/api/v1/scanners/notes${since === null ? '' : `?since=${since}`}`, {
          headers: { authorization: `Bearer ${api_key}`, ...(gzip ? {} : { 'accept-encoding': 'identity' }) },
        });
        const text = await response.text();
        // On the wire: the gzip body fetch asked for (content-length), and the JSON it unpacks to.
        wire += Number(response.headers.get('content-length') ?? Buffer.byteLength(text));
        bytes += Buffer.byteLength(text);
        const page = JSON.parse(text) as NotesPage;
        if (response.status !== 200 || !isNotesPage(page)) throw new Error(`page ${pages + 1}: ${response.status} ${text.slice(0, 200)}`);
        rows += page.tickets.length;
        handoutRows += page.handouts?.length ?? 0;
        pages += 1;
        since = page.next;
        if (page.complete) return { ms: performance.now() - started, bytes, wire, rows, pages, handoutRows };
      }
    };
    await syncOnce(); // warm the caches and the connection
    const samples = [await syncOnce(), await syncOnce(), await syncOnce()];
    const best = samples.reduce((a, b) => (a.ms <= b.ms ? a : b));
    const worst = samples.reduce((a, b) => (a.ms >= b.ms ? a : b));
    const plain = await syncOnce(false);

    // The kiosk's whole sync into a fresh kiosk.db each time: the HTTP pages, their checks and the store's writes.
    const document = { endpoints: { scanner_notes: `${server.url}/api/v1/scanners/notes` } } as unknown as DiscoveryDocument;
    const enrollment = { iss: 'http://127.0.0.1:8080', eid: event.eid } as Enrollment;
    const kioskDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-bench-kiosk-'));
    const kioskRuns: { ms: number; listBytes: number; changed: number }[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const dbPath = path.join(kioskDir, `kiosk-${i}.db`);
        const store = LocalStore.open(dbPath);
        const empty = fileBytes(dbPath);
        const started = performance.now();
        const outcome = await new NotesSync({ store, client: new IssuerClient(), now: Date.now }).sync(
          enrollment,
          document,
          api_key,
          60_000,
        );
        const ms = performance.now() - started;
        store.close();
        if (outcome.kind !== 'synced') throw new Error(`the kiosk's sync: ${JSON.stringify(outcome)}`);
        kioskRuns.push({ ms, listBytes: fileBytes(dbPath) - empty, changed: outcome.changed });
      }
    } finally {
      fs.rmSync(kioskDir, { recursive: true, force: true });
    }
    const kiosk = kioskRuns.reduce((a, b) => (a.ms <= b.ms ? a : b));
    const kioskWorst = kioskRuns.reduce((a, b) => (a.ms >= b.ms ? a : b));
    const mb = (best.bytes / 1024 / 1024).toFixed(2);
    console.log(
      `${store}${handouts ? ` (with handouts: ${best.handoutRows} ticket rows)` : ''}: ${best.rows} notes in ${best.pages} pages of ${NOTES_PAGE_DEFAULT}: HTTP pages alone ${best.ms.toFixed(0)} ms (worst of 3 ${worst.ms.toFixed(0)} ms), ${(best.wire / 1024 / 1024).toFixed(2)} MB on the wire (gzip), ${mb} MB of JSON (${(best.bytes / best.rows).toFixed(1)} bytes a note); without gzip ${plain.ms.toFixed(0)} ms, ${(plain.wire / 1024 / 1024).toFixed(2)} MB on the wire  [import of the ${count} tickets: ${(issued / 1000).toFixed(1)} s]`,
    );
    console.log(
      `${store}: the kiosk's whole sync into a fresh kiosk.db (NotesSync, IssuerClient, the kiosk's store): ${kiosk.changed} notes in ${kiosk.ms.toFixed(0)} ms (worst of 3 ${kioskWorst.ms.toFixed(0)} ms, HTTP ${((best.ms / kiosk.ms) * 100).toFixed(0)}% of it), the list on the kiosk's disk ${(kiosk.listBytes / 1024 / 1024).toFixed(2)} MB (${(kiosk.listBytes / Math.max(1, kiosk.changed)).toFixed(1)} bytes a note); goal < ${GOAL_MS} ms and < ${GOAL_BYTES / 1024 / 1024} MB: ${kiosk.ms < GOAL_MS && best.wire < GOAL_BYTES && kiosk.listBytes < GOAL_BYTES ? 'met' : 'NOT met'} (without gzip on the wire: ${plain.wire < GOAL_BYTES ? 'met' : 'NOT met'})`,
    );
  } finally {
    server.stop();
  }
}

/** A SQLite file's size with its write-ahead log, as it sits on the kiosk's disk. */
function fileBytes(file: string): number {
  const size = (name: string): number => (fs.existsSync(name) ? fs.statSync(name).size : 0);
  return size(file) + size(`${file}-wal`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const count = numberOption(argv, '--notes', 100_000);
  const store = textOption(argv, '--store', 'both');
  const handouts = numberOption(argv, '--handouts', 0, { min: 0, max: 1 }) === 1;
  if (store !== 'sqlite' && store !== 'postgres' && store !== 'both') throw new Error('--store needs sqlite, postgres or both');
  console.log(
    `attention notes sync, ${count} tickets with a note in one event (machine: ${os.cpus().length} cores, Node ${process.version})`,
  );
  if (store !== 'postgres') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-bench-'));
    try {
      await measure('SQLite', path.join(dir, 'data'), [], count, handouts);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  if (store !== 'sqlite') {
    let cluster;
    try {
      cluster = await startPostgresCluster({ database: 'issuer' });
    } catch (error) {
      console.log(`PostgreSQL: skipped, no cluster could be started (${error instanceof Error ? error.message : String(error)})`);
      return;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notes-bench-'));
    try {
      await measure('PostgreSQL', path.join(dir, 'data'), ['--database', cluster.url], count, handouts);
    } finally {
      await cluster.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

await main();
