/**
 * (h) `ticket export` to PDF (docs/issuer.md "Tickets you can send"): the goal is at least 500 tickets/s on
 * this machine, with memory that does not grow with the number of tickets. A new event of the benchmark's data
 * dir gets N tickets (`ticket issue --count N`), then `ticket export --format pdf` runs as its own process,
 * as an organizer runs it, and reports its rate and its peak RSS (process.resourceUsage().maxRSS); a run
 * with a tenth of the tickets shows whether the peak grows with them. Unconstrained, V8 collects garbage
 * lazily and the peak RSS says little about what is kept; so the N-ticket export runs once more with its heap
 * capped at HEAP_CAP_MIB, which about 1.5 KB kept per ticket (as before the written pages were let go of)
 * would exceed for 100,000 tickets.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TicketExportResult } from '../issuer/admin/ticket-export.js';

const run = promisify(execFile);
const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'issuer', 'cli.js');
export const TICKET_EXPORT_GOAL = 500;
const HEAP_CAP_MIB = 64;

async function cli<T>(args: string[], env: NodeJS.ProcessEnv = {}): Promise<T> {
  const { stdout } = await run(process.execPath, [CLI, ...args, '--json'], { maxBuffer: 256 << 20, env: { ...process.env, ...env } });
  return JSON.parse(stdout) as T;
}

async function exportRun(dataDir: string, eid: string, tickets: number, env: NodeJS.ProcessEnv = {}): Promise<TicketExportResult> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ticket-export-bench-'));
  try {
    const args = ['ticket', 'export', '--data', dataDir, '--event', eid, '--out', out, '--format', 'pdf'];
    const result = await cli<TicketExportResult>(args, env);
    if (result.counts.pdf_pages !== tickets) throw new Error(`ticket export wrote ${result.counts.pdf_pages} pages, not ${tickets}`);
    return result;
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

export async function measureTicketExport(dataDir: string, tickets: number): Promise<void> {
  const small = Math.max(1, Math.round(tickets / 10));
  const events = await Promise.all(
    [tickets, small].map((n) =>
      cli<{ eid: string }>([
        'event',
        'create',
        '--data',
        dataDir,
        '--name',
        `Export Night ${n}`,
        '--date',
        '2026-12-01T19:00:00Z',
        '--venue',
        'Loopback Hall',
      ]),
    ),
  );
  console.error(`(h) issuing ${tickets} + ${small} tickets for ticket export…`);
  for (const [i, n] of [tickets, small].entries()) {
    await run(
      process.execPath,
      [
        CLI,
        'ticket',
        'issue',
        '--data',
        dataDir,
        '--event',
        events[i]!.eid,
        '--count',
        String(n),
        '--holder',
        'Ada Lovelace',
        '--type',
        'Standard',
        '--json',
      ],
      {
        maxBuffer: 1 << 30,
      },
    );
  }
  console.error(`(h) ticket export --format pdf of ${tickets} and of ${small} tickets…`);
  const load = os.loadavg()[0]!;
  const big = await exportRun(dataDir, events[0]!.eid, tickets);
  const little = await exportRun(dataDir, events[1]!.eid, small);
  const capped = await exportRun(dataDir, events[0]!.eid, tickets, { NODE_OPTIONS: `--max-old-space-size=${HEAP_CAP_MIB}` }).catch(
    (error: unknown) => (error instanceof Error ? error.message.split('\n')[0]! : String(error)),
  );
  console.log('');
  console.log(
    `(h) ticket export to PDF (A6, one ticket per page), its own process, load average ${load.toFixed(2)} at the start, ${os.loadavg()[0]!.toFixed(2)} at the end:`,
  );
  console.log('');
  console.log('| tickets | tickets/s | time | peak RSS | goal |');
  console.log('|---|---|---|---|---|');
  const rows: [string, TicketExportResult][] = [
    ['', big],
    ['', little],
  ];
  if (typeof capped !== 'string') rows.push([`, heap capped at ${HEAP_CAP_MIB} MiB`, capped]);
  for (const [how, result] of rows) {
    console.log(
      `| ${result.counts.pdf_pages.toLocaleString('en-US')}${how} | ${result.tickets_per_second.toLocaleString('en-US')} | ${result.seconds.toFixed(1)} s | ${result.peak_rss_mib} MiB | ≥ ${TICKET_EXPORT_GOAL}/s: ${result.tickets_per_second >= TICKET_EXPORT_GOAL ? 'met' : 'NOT met'} |`,
    );
  }
  console.log('');
  console.log(
    `Peak RSS with ${tickets.toLocaleString('en-US')} tickets is ${big.peak_rss_mib - little.peak_rss_mib} MiB above the run with ${small.toLocaleString('en-US')}: memory ${big.peak_rss_mib - little.peak_rss_mib < 64 ? 'stays flat' : 'GROWS with the tickets'}.`,
  );
  console.log(
    typeof capped === 'string'
      ? `With the heap capped at ${HEAP_CAP_MIB} MiB the ${tickets.toLocaleString('en-US')}-ticket export FAILED: ${capped}`
      : `With the heap capped at ${HEAP_CAP_MIB} MiB the ${tickets.toLocaleString('en-US')}-ticket export completed (peak RSS ${capped.peak_rss_mib} MiB).`,
  );
}
