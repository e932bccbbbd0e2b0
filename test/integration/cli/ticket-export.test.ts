/**
 * `ticket export`: every PNG and every PDF page read back by independent decoders (the PDF rendered by
 * poppler's pdftoppm at 150 dpi, decoded by zxing-cpp; its text by pdftotext), holder names in Latin,
 * Greek, Cyrillic, Chinese, Japanese and Korean, and a visible fallback for what no bundled font draws.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliFailure, cliJson, initIssuer, runCli, scratchDir, type Issuer } from '../../support/cli-harness.js';
import { jsqrDecode, pngPixels, zxingDecodeAll } from '../../support/qr-decoders.js';
import type { TicketExportResult } from '../../../issuer/admin/ticket-export.js';

const SLOW = 120_000;

const HOLDERS = [
  'Ada Lovelace',
  'Σωκράτης Παπαδόπουλος',
  'Фёдор Достоевский',
  '王小明',
  '山田 はなこ',
  '김민준',
  'Zoë 🎉', // the emoji is in no bundled font: printed as "?", said on the page and on stderr
];

const shortId = (tid: string): string => `${tid.slice(-8, -4)}-${tid.slice(-4)}`;

function poppler(tool: string, args: string[]): string {
  return execFileSync(tool, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
}

describe('ticket export', () => {
  let issuer: Issuer;
  let eid: string;
  const tickets: { tid: string; qr: string; holder: string; type: string }[] = [];
  let revoked: string;

  beforeAll(async () => {
    for (const tool of ['pdftoppm', 'pdftotext', 'pdfinfo']) {
      // poppler-utils comes with scripts/install-system-deps.sh: without it these tests cannot read a PDF.
      expect(() => execFileSync('which', [tool]), `${tool} (apt poppler-utils) must be installed`).not.toThrow();
    }
    issuer = await initIssuer();
    const event = await cliJson<{ eid: string }>([
      'event',
      'create',
      '--data',
      issuer.data,
      '--name',
      'Spring Gala',
      '--date',
      '2026-12-01T18:30:00Z',
      '--venue',
      'Main Hall',
    ]);
    eid = event.eid;
    for (const [i, holder] of HOLDERS.entries()) {
      const type = i % 2 === 0 ? 'VIP' : 'Standard';
      const issued = await cliJson<{ tickets: { tid: string; qr: string }[] }>([
        'ticket',
        'issue',
        '--data',
        issuer.data,
        '--event',
        eid,
        '--holder',
        holder,
        '--type',
        type,
      ]);
      tickets.push({ ...issued.tickets[0]!, holder, type });
    }
    const extra = await cliJson<{ tickets: { tid: string }[] }>(['ticket', 'issue', '--data', issuer.data, '--event', eid]);
    revoked = extra.tickets[0]!.tid;
    await cliJson(['ticket', 'revoke', '--data', issuer.data, revoked]);
  }, SLOW);

  it(
    'writes a PNG per ticket and a PDF with one page per ticket; every code decodes to the exact ticket string, every page says who and what',
    async () => {
      const out = path.join(scratchDir('tickets-'), 'out');
      const run = await runCli([
        'ticket',
        'export',
        '--data',
        issuer.data,
        '--event',
        eid,
        '--out',
        out,
        '--tz',
        'Europe/Berlin',
        '--json',
      ]);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as TicketExportResult;
      const pdf = path.join(out, `tickets-${eid}.pdf`);
      expect(result).toMatchObject({ eid, format: 'both', page: 'a6', time_zone: 'Europe/Berlin', pdf, out });
      expect(result.counts).toEqual({
        tickets: HOLDERS.length,
        png: HOLDERS.length,
        pdf_pages: HOLDERS.length,
        skipped_revoked: 1,
        unprintable_text: 1,
      });
      const manifest = path.join(out, `tickets-${eid}.csv`);
      expect(result.manifest).toBe(manifest);
      expect(result.files).toEqual([pdf, manifest, ...tickets.map((t) => path.join(out, `${t.tid}.png`))]);
      // Bearer credentials and holder names: owner only, in a folder only the owner can open (docs/issuer.md "Files the CLI writes").
      expect(fs.statSync(out).mode & 0o777).toBe(0o700);
      for (const file of result.files) expect({ file, mode: fs.statSync(file).mode & 0o777 }).toEqual({ file, mode: 0o600 });
      // The list for a mail merge: one row per ticket sent, in page order, the revoked one left out.
      const rows = fs.readFileSync(manifest, 'utf8').split('\r\n');
      expect(rows[0]).toBe('tid,short_id,holder_name,ticket_type,png,pdf_page');
      expect(rows.slice(1, -1)).toEqual(tickets.map((t, i) => [t.tid, shortId(t.tid), t.holder, t.type, `${t.tid}.png`, i + 1].join(',')));
      expect(rows.at(-1)).toBe('');
      expect(fs.readFileSync(manifest, 'utf8')).not.toContain(revoked);
      expect(result.peak_rss_mib).toBeGreaterThan(0);
      expect(fs.existsSync(path.join(out, `${revoked}.png`))).toBe(false);
      expect(run.stderr).toContain('1 revoked ticket(s) left out');
      expect(run.stderr).toMatch(/1 ticket\(s\) have characters .* no bundled font/);

      // Every PNG, by both decoders.
      for (const ticket of tickets) {
        const pixels = pngPixels(fs.readFileSync(path.join(out, `${ticket.tid}.png`)));
        expect(await zxingDecodeAll(pixels)).toEqual([ticket.qr]);
        expect(jsqrDecode(pixels)).toBe(ticket.qr);
      }

      // Every PDF page: rendered at 150 dpi, decoded by zxing-cpp; its text by pdftotext.
      expect(poppler('pdfinfo', [pdf])).toMatch(/Pages:\s+7\n/);
      expect(poppler('pdfinfo', [pdf])).toMatch(/Page size:\s+297.64 x 419.53 pts/);
      const pages = path.join(out, 'page');
      poppler('pdftoppm', ['-r', '150', '-png', pdf, pages]);
      for (const [i, ticket] of tickets.entries()) {
        const file = `${pages}-${i + 1}.png`;
        expect(await zxingDecodeAll(pngPixels(fs.readFileSync(file))), `page ${i + 1}`).toEqual([ticket.qr]);
        const text = poppler('pdftotext', ['-f', String(i + 1), '-l', String(i + 1), '-layout', pdf, '-']);
        expect(text).toContain('Spring Gala');
        expect(text).toContain('Main Hall');
        // 18:30 UTC is 19:30 in Berlin in December.
        expect(text).toContain('Tue, 1 Dec 2026, 19:30 Europe/Berlin (UTC+01:00)');
        expect(text).toContain(ticket.type);
        expect(text).toContain(shortId(ticket.tid));
        expect(text).toContain(ticket.tid);
        if (ticket.holder.includes('🎉')) {
          expect(text).toContain('Zoë ?');
          expect(text).toContain('cannot be printed');
        } else {
          expect(text.replace(/\s+/g, ' ')).toContain(ticket.holder);
          expect(text).not.toContain('cannot be printed');
        }
      }
    },
    SLOW,
  );

  it(
    '--tid, --page a4 and --format pdf; refuses a bad zone, page or format, and a ticket of another event, before writing anything',
    async () => {
      const out = path.join(scratchDir('tickets-'), 'a4');
      const wanted = [tickets[3]!, tickets[1]!];
      const result = await cliJson<TicketExportResult>([
        'ticket',
        'export',
        '--data',
        issuer.data,
        '--event',
        eid,
        '--out',
        out,
        '--format',
        'pdf',
        '--page',
        'a4',
        '--tid',
        ...wanted.map((t) => t.tid),
      ]);
      expect(result.counts).toMatchObject({ tickets: 2, png: 0, pdf_pages: 2 });
      expect(result.time_zone).toBe('UTC');
      expect(fs.readdirSync(out).sort()).toEqual([`tickets-${eid}.csv`, `tickets-${eid}.pdf`]);
      // With --format pdf the list names no PNG; its pages follow --tid's order.
      expect(fs.readFileSync(result.manifest, 'utf8').split('\r\n').slice(1, -1)).toEqual(
        wanted.map((t, i) => [t.tid, shortId(t.tid), t.holder, t.type, '', i + 1].join(',')),
      );
      const info = poppler('pdfinfo', [result.pdf!]);
      expect(info).toMatch(/Pages:\s+2\n/);
      expect(info).toMatch(/Page size:\s+595.28 x 841.89 pts/);
      poppler('pdftoppm', ['-r', '150', '-png', result.pdf!, path.join(out, 'page')]);
      for (const [i, ticket] of wanted.entries()) {
        expect(await zxingDecodeAll(pngPixels(fs.readFileSync(path.join(out, `page-${i + 1}.png`))))).toEqual([ticket.qr]);
        expect(poppler('pdftotext', ['-f', String(i + 1), '-l', String(i + 1), result.pdf!, '-'])).toMatch(/Tue, 1 Dec 2026, 18:30 UTC\n/);
      }

      const other = await cliJson<{ eid: string }>([
        'event',
        'create',
        '--data',
        issuer.data,
        '--name',
        'Other',
        '--date',
        '2026-12-02T18:30:00Z',
        '--venue',
        'Elsewhere',
      ]);
      const untouched = path.join(scratchDir('tickets-'), 'none');
      const base = ['ticket', 'export', '--data', issuer.data, '--out', untouched];
      expect((await cliFailure([...base, '--event', eid, '--tz', 'Mars/Olympus'])).code).toBe('INVALID_ARGUMENT');
      expect((await cliFailure([...base, '--event', eid, '--page', 'a3'])).code).toBe('INVALID_ARGUMENT');
      expect((await cliFailure([...base, '--event', eid, '--format', 'svg'])).code).toBe('INVALID_ARGUMENT');
      expect((await cliFailure([...base, '--event', other.eid, '--tid', tickets[0]!.tid])).code).toBe('TICKET_NOT_FOUND');
      expect((await cliFailure([...base, '--event', 'NOPE'])).code).toBe('EVENT_NOT_FOUND');
      expect(fs.existsSync(untouched)).toBe(false);
    },
    SLOW,
  );
});
