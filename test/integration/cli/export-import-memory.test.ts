/**
 * `export` and `import` of a whole issuer in flat memory (docs/issuer.md "Moving an issuer to the venue and
 * back", "Size"; docs/benchmarks.md (i)): each runs as its own child process on a real SQLite issuer of
 * 10,000 and of 100,000 tickets (half of them checked in, each with its entry in the history), and reports
 * its peak RSS. The growth from 10,000 to 100,000 tickets must stay far below what holding the file costs:
 * the file's own size, and some 3 KB per ticket for the parsed rows, as `import` did before it streamed.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ImportResult } from '../../../issuer/transfer/import.js';
import { CLI, createEvent, initIssuer, openDb, runCli, scratchDir } from '../../support/cli-harness.js';

/**
 * Each child's JavaScript heap is capped, as `ticket export`'s memory test does, and so is V8's young generation
 * (2 MiB semi-spaces): uncapped, V8 grows its young generation (up to 3 x 16 MiB) and lets garbage pile up as far as
 * the heap it started with allows, so a peak RSS said more about V8's sizing, and about what the CLI loaded at start
 * (about 40 MiB less since it loads the PDF and PostgreSQL packages only when a command uses them: 87 against 124
 * MiB at 10,000 tickets), than about what the command keeps. 64 MiB: the 100,000-ticket file alone (about 97 MiB)
 * could not be held in it.
 */
const HEAP_CAP_MIB = 64;

/** Loaded into the child before the CLI: its peak RSS (KiB) on stderr as it exits. */
const REPORT_PEAK_RSS = `data:text/javascript,process.on("exit", () => process.stderr.write("\\npeak_rss_kib=" + process.resourceUsage().maxRSS + "\\n"))`;

interface Measured {
  stdout: string;
  peakRss: number;
  seconds: number;
}

/** The built CLI in a child process of its own, with its peak RSS in bytes. */
function measuredCli(args: readonly string[]): Promise<Measured> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', REPORT_PEAK_RSS, CLI, ...args, '--json'],
      {
        env: { ...process.env, TICKET_ISSUER_DATA: '', NODE_OPTIONS: `--max-old-space-size=${HEAP_CAP_MIB} --max-semi-space-size=2` },
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const peak = /peak_rss_kib=(\d+)/.exec(stderr);
        if (error || !peak) return reject(new Error(`${args.join(' ')} failed: ${error?.message ?? ''}\n${stderr}`));
        resolve({ stdout, peakRss: Number(peak[1]) * 1024, seconds: (Date.now() - started) / 1000 });
      },
    );
  });
}

/** An issuer with `tickets` tickets; every second one checked in at gate A, with its entry in the admission history. */
async function issuerWith(tickets: number): Promise<{ data: string; eid: string }> {
  const { data } = await initIssuer();
  const { eid } = await createEvent(data);
  const issued = await runCli(['ticket', 'issue', '--data', data, '--event', eid, '--count', String(tickets)]);
  expect(issued.code, issued.stderr).toBe(0);
  const db = openDb(data);
  // Written straight into the tables (a check-in through the API costs a request each): rows as check-ins leave them.
  db.exec(`
    BEGIN;
    INSERT INTO checkins (tid, checked_in_at, scanner_id, gate_id, api_key_id, idempotency_key, recorded_at,
                          state, state_at, first_checked_in_at, entries, version)
      SELECT tid, '2026-12-20T19:00:00.000Z', 'scanner-1', 'A', 'key-1', 'entry-' || tid, '2026-12-20T19:00:01.000Z',
             'inside', '2026-12-20T19:00:00.000Z', '2026-12-20T19:00:00.000Z', 1, 1
      FROM tickets WHERE rowid % 2 = 0;
    INSERT INTO admission_events (tid, eid, action, at, gate_id, scanner_id, api_key_id, idempotency_key, actor, ticket_type, recorded_at)
      SELECT c.tid, t.eid, 'entry', c.checked_in_at, c.gate_id, c.scanner_id, c.api_key_id, c.idempotency_key,
             'scanner:' || c.scanner_id, t.ticket_type, c.recorded_at
      FROM checkins c JOIN tickets t ON t.tid = c.tid ORDER BY c.rowid;
    COMMIT;`);
  db.close();
  return { data, eid };
}

interface Run {
  tickets: number;
  fileBytes: number;
  exported: Measured;
  imported: Measured;
}

async function exportAndImport(tickets: number): Promise<Run> {
  const { data } = await issuerWith(tickets);
  const file = path.join(scratchDir('memory-'), 'issuer.json');
  const exported = await measuredCli(['export', '--data', data, '--to', file]);
  const imported = await measuredCli(['import', '--data', path.join(scratchDir('memory-venue-'), 'issuer-data'), '--from', file]);
  const result = JSON.parse(imported.stdout) as ImportResult;
  expect(result.counts.tickets.added).toBe(tickets);
  expect(result.counts.checkins.added).toBe(tickets / 2);
  expect(result.counts.admission_events.added).toBe(tickets / 2);
  const fileBytes = fs.statSync(file).size;
  fs.rmSync(file);
  return { tickets, fileBytes, exported, imported };
}

const MIB = 2 ** 20;
const mib = (bytes: number): string => `${(bytes / MIB).toFixed(1)} MiB`;

describe('export and import of a whole issuer', () => {
  it('keep a flat peak RSS from 10,000 to 100,000 tickets', { timeout: 240_000 }, async () => {
    const small = await exportAndImport(10_000);
    const large = await exportAndImport(100_000);
    const growth = {
      export: large.exported.peakRss - small.exported.peakRss,
      import: large.imported.peakRss - small.imported.peakRss,
    };
    for (const run of [small, large]) {
      console.log(
        `${run.tickets} tickets, file ${mib(run.fileBytes)}: export ${run.exported.seconds} s, peak RSS ${mib(run.exported.peakRss)}; import ${run.imported.seconds} s, peak RSS ${mib(run.imported.peakRss)}`,
      );
    }
    console.log(
      `growth from 10,000 to 100,000 tickets: export ${mib(growth.export)}, import ${mib(growth.import)} (${((100 * growth.import) / large.fileBytes).toFixed(0)}% of the file)`,
    );
    // What growth there is, is mostly V8's heap and SQLite's caches warming up (a longer run keeps them larger),
    // reached well before 100,000 tickets: 200,000 peak the same (docs/benchmarks.md (i)). Export: rows stream
    // from the database to the file in pages. Import: besides that, 8-byte fingerprints of keys, never rows.
    // Holding the file cost about 3 times its size (295 MiB more at 100,000 tickets than at 10,000, before import streamed).
    expect(growth.export).toBeLessThan(0.2 * large.fileBytes);
    expect(growth.import).toBeLessThan(0.4 * large.fileBytes);
  });
});
