/**
 * `ticket export --format pdf` in flat memory (docs/issuer.md "Tickets you can send", docs/benchmarks.md
 * "(h) `ticket export` to PDF"): the real command, in its own process, with its JavaScript heap capped at
 * 40 MiB, exports 2,000 and then 20,000 tickets. Both must finish. Before the written pages were let go of
 * (about 1.5 KB a ticket kept to the end), the 20,000-ticket export ran out of that heap, as it did of a
 * 32 MiB one; the 2,000-ticket one fitted. The figures are printed; speed is the benchmark's business.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEvent, initIssuer, issueTickets, runCli, scratchDir } from '../../support/cli-harness.js';
import type { TicketExportResult } from '../../../issuer/admin/ticket-export.js';

const HEAP_CAP_MIB = 40;
const SMALL = 2_000;
const LARGE = 20_000;

describe('ticket export to PDF: memory', () => {
  it(`exports ${SMALL.toLocaleString('en-US')} and ${LARGE.toLocaleString('en-US')} tickets within the same ${HEAP_CAP_MIB} MiB heap`, async () => {
    const issuer = await initIssuer();
    const exportOf = async (count: number): Promise<TicketExportResult> => {
      const event = await createEvent(issuer.data);
      await issueTickets(issuer.data, event.eid, count, ['--holder', 'Ada Lovelace']);
      const out = path.join(scratchDir('ticket-memory-'), 'out');
      const run = await runCli(
        ['ticket', 'export', '--data', issuer.data, '--event', event.eid, '--out', out, '--format', 'pdf', '--json'],
        {
          NODE_OPTIONS: `--max-old-space-size=${HEAP_CAP_MIB}`,
        },
      );
      expect(run.stderr, `export of ${count} tickets with the heap capped at ${HEAP_CAP_MIB} MiB`).not.toMatch(/heap out of memory/);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as TicketExportResult;
      expect(result.counts.pdf_pages).toBe(count);
      expect(execFileSync('pdfinfo', [result.pdf!], { encoding: 'utf8' })).toMatch(new RegExp(`Pages:\\s+${count}\\n`));
      fs.rmSync(out, { recursive: true, force: true });
      return result;
    };
    const small = await exportOf(SMALL);
    const large = await exportOf(LARGE);
    for (const result of [small, large]) {
      console.log(
        `ticket export, heap capped at ${HEAP_CAP_MIB} MiB: ${result.counts.pdf_pages} tickets in ${result.seconds} s (${result.tickets_per_second}/s), peak RSS ${result.peak_rss_mib} MiB`,
      );
    }
    // Under the cap the whole process stays about the same size too.
    expect(large.peak_rss_mib - small.peak_rss_mib).toBeLessThan(HEAP_CAP_MIB);
  }, 150_000);
});
