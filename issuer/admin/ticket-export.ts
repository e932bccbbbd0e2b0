/**
 * `ticket export --event EID --out DIR`: tickets to send to attendees
 * (docs/issuer.md "Tickets you can send"): a PNG of each ticket's QR code,
 * `<tid>.png`, and one print-ready PDF with a ticket per page
 * (issuer/admin/ticket-pdf.ts), and a list of them for a mail merge,
 * `tickets-<eid>.csv`: each ticket's id, short id, holder, type, PNG file
 * and PDF page.
 *
 * Streamed: tickets are read in keyset pages from the store (transferRows,
 * 1,000 at a time) and each is drawn and written before the next page is
 * read; the PDF goes to its file as it is made, a megabyte at a time, and
 * its written pages are let go (issuer/admin/pdfkit-streaming.ts). Memory
 * does not grow with the number of tickets, except for the list of file
 * paths the result reports (PNGs only) and a few dozen bytes a PDF page
 * that pdfkit needs at the end (the page tree, the cross-reference table):
 * docs/benchmarks.md "(h) `ticket export` to PDF".
 */
import fs from 'node:fs';
import path from 'node:path';
import { formatCsvRow } from '../csv.js';
import { AdminError } from '../error-catalogue.js';
import type { EventRow } from '../store/events.js';
import type { Sql } from '../store/sql.js';
import { findTicket } from '../store/tickets.js';
import { transferRows } from '../transfer/store.js';
import { requireEvent, type IssuerContext } from './issuer-context.js';
import type { StartProgress } from './progress.js';
import { makePrivateDir, openPrivateFile } from './private-files.js';
import { writeQrPng } from './qr.js';
import { isTimeZone } from '../../protocol/check-in-rules.js';
import { eventTimeText, PAGE_SIZES, shortTicketId, TicketPdf, type PageSize, type TicketPage } from './ticket-pdf.js';

export const TICKET_EXPORT_FORMATS = ['png', 'pdf', 'both'] as const;
export type TicketExportFormat = (typeof TICKET_EXPORT_FORMATS)[number];
export const PAGE_NAMES = Object.keys(PAGE_SIZES) as PageSize[];

export interface TicketExportOptions {
  eid: string;
  out: string;
  format: TicketExportFormat;
  page: PageSize;
  /** IANA time zone the event's date and time are printed in. */
  timeZone: string;
  /** Only these tickets (of the event); all of its tickets when absent. */
  tids?: readonly string[];
}

export interface TicketExportResult {
  eid: string;
  event: string;
  out: string;
  format: TicketExportFormat;
  page: PageSize;
  time_zone: string;
  /** The PDF file, or null with --format png. */
  pdf: string | null;
  /** The list of the tickets exported, for a mail merge (MANIFEST_COLUMNS), written with every format. */
  manifest: string;
  /** Every file written, absolute paths: the PDF first, the list, then the PNGs in ticket order. */
  files: string[];
  counts: {
    /** Tickets exported (each has a PNG and/or a PDF page). */
    tickets: number;
    png: number;
    pdf_pages: number;
    /** Revoked tickets of the event, left out: a revoked ticket must not be sent. */
    skipped_revoked: number;
    /** Tickets whose holder, type or event text had characters no bundled font can draw (printed as "?"). */
    unprintable_text: number;
  };
  seconds: number;
  tickets_per_second: number;
  /** process.resourceUsage().maxRSS at the end, in MiB: the peak memory of the whole command. */
  peak_rss_mib: number;
  warnings: string[];
}

/** The list's columns: `png` is the file's name in the folder, `pdf_page` its page (1, 2, …); empty when not made. */
export const MANIFEST_COLUMNS = ['tid', 'short_id', 'holder_name', 'ticket_type', 'png', 'pdf_page'] as const;

/** Bytes of PDF gathered before they are written to the file. */
const PDF_WRITE_BYTES = 1 << 20;
const PROGRESS_STEP = 100;

export function parseTicketExportFormat(value: string): TicketExportFormat {
  if (!(TICKET_EXPORT_FORMATS as readonly string[]).includes(value))
    throw new AdminError('INVALID_ARGUMENT', `--format must be one of ${TICKET_EXPORT_FORMATS.join(', ')}, not "${value}"`);
  return value as TicketExportFormat;
}

export function parsePageSize(value: string): PageSize {
  const page = value.toLowerCase();
  if (!(PAGE_NAMES as string[]).includes(page))
    throw new AdminError('INVALID_ARGUMENT', `--page must be one of ${PAGE_NAMES.join(', ')}, not "${value}"`);
  return page as PageSize;
}

export function parseTimeZone(value: string): string {
  if (!isTimeZone(value))
    throw new AdminError('INVALID_ARGUMENT', `--tz must be an IANA time zone such as Europe/Berlin or America/New_York, not "${value}"`);
  return value;
}

export async function exportTickets(
  context: IssuerContext,
  options: TicketExportOptions,
  startProgress: StartProgress,
  log: (message: string) => void,
): Promise<TicketExportResult> {
  const started = process.hrtime.bigint();
  const db = context.database.read;
  const event = await requireEvent(db, options.eid);
  const selected = options.tids === undefined ? undefined : await requireTickets(db, event, options.tids);
  const out = path.resolve(options.out);
  prepareOutDir(out);

  const wantPng = options.format !== 'pdf';
  const wantPdf = options.format !== 'png';
  const pdfFile = wantPdf ? path.join(out, `tickets-${event.eid}.pdf`) : null;
  const manifestFile = path.join(out, `tickets-${event.eid}.csv`);
  const files: string[] = pdfFile === null ? [manifestFile] : [pdfFile, manifestFile];
  const counts: TicketExportResult['counts'] = { tickets: 0, png: 0, pdf_pages: 0, skipped_revoked: 0, unprintable_text: 0 };

  const total = selected?.length ?? (await countTickets(db, event.eid));
  const progress = startProgress(total, 'Exporting tickets');
  let pdf: TicketPdf | undefined;
  let sink: OutputFile | undefined;
  const manifest = new OutputFile(manifestFile);
  try {
    manifest.write(Buffer.from(`${formatCsvRow(MANIFEST_COLUMNS)}\r\n`));
    if (pdfFile !== null) {
      const file = (sink = new OutputFile(pdfFile));
      pdf = await TicketPdf.open(
        options.page,
        { name: event.name, venue: event.venue, when: eventTimeText(event.date, options.timeZone) },
        event.name,
        (chunk) => file.write(chunk),
      );
    }
    let sinceProgress = 0;
    for await (const ticket of selected ?? eventTickets(db, event.eid)) {
      if (ticket.revoked) {
        counts.skipped_revoked++;
      } else {
        if (pdf) {
          if (pdf.addTicket(ticket) > 0) counts.unprintable_text++;
          counts.pdf_pages++;
        }
        const png = wantPng ? `${ticket.tid}.png` : null;
        if (png !== null) {
          const file = path.join(out, png);
          await writeQrPng(file, ticket.qr);
          files.push(file);
          counts.png++;
        }
        const page = pdf ? counts.pdf_pages : null;
        manifest.write(Buffer.from(`${formatCsvRow([ticket.tid, shortTicketId(ticket.tid), ticket.holder, ticket.type, png, page])}\r\n`));
        counts.tickets++;
      }
      if (++sinceProgress === PROGRESS_STEP) {
        progress.advance(sinceProgress);
        sinceProgress = 0;
        // With an in-process database the loop never waits for anything: a turn of the event loop now and
        // then runs what was queued for it (timers, process.nextTick callbacks) instead of letting it pile up.
        await new Promise(setImmediate);
      }
    }
    progress.advance(sinceProgress);
    if (pdf) {
      pdf.finish();
      sink!.close();
    }
    manifest.close();
  } catch (error) {
    sink?.abandon();
    manifest.abandon();
    throw error;
  } finally {
    progress.stop();
  }
  const warnings: string[] = [];
  if (counts.skipped_revoked > 0) warnings.push(`${counts.skipped_revoked} revoked ticket(s) left out`);
  if (counts.unprintable_text > 0)
    warnings.push(
      `${counts.unprintable_text} ticket(s) have characters in the holder name, type or event that no bundled font covers; they are printed as "?" (the QR code is unaffected)`,
    );
  if (counts.tickets === 0) warnings.push('no ticket to export');
  for (const warning of warnings) log(`warning: ${warning}`);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    eid: event.eid,
    event: event.name,
    out,
    format: options.format,
    page: options.page,
    time_zone: options.timeZone,
    pdf: pdfFile,
    manifest: manifestFile,
    files,
    counts,
    seconds: Math.round(seconds * 1000) / 1000,
    tickets_per_second: seconds > 0 ? Math.round(counts.tickets / seconds) : 0,
    peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
    warnings,
  };
}

interface ExportTicket extends TicketPage {
  revoked: boolean;
}

const asExportTicket = (row: Record<string, unknown>): ExportTicket => ({
  tid: row.tid as string,
  qr: row.qr as string,
  holder: row.holder_name as string | null,
  type: row.ticket_type as string | null,
  revoked: row.revoked_at !== null,
});

/** The event's tickets in issue order, read 1,000 at a time (keyset pages). */
async function* eventTickets(db: Sql, eid: string): AsyncGenerator<ExportTicket> {
  for await (const row of transferRows(db, 'tickets', eid)) yield asExportTicket(row);
}

async function countTickets(db: Sql, eid: string): Promise<number> {
  const row = await db.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM tickets WHERE eid = ?', [eid]);
  return Number(row?.n ?? 0);
}

/** --tid: each must be a ticket of the event; checked before any file is written. */
async function requireTickets(db: Sql, event: EventRow, tids: readonly string[]): Promise<ExportTicket[]> {
  const tickets: ExportTicket[] = [];
  for (const tid of new Set(tids)) {
    const row = (await findTicket(db, tid)) ?? (await findTicket(db, tid.toUpperCase()));
    if (!row || row.eid !== event.eid)
      throw new AdminError('TICKET_NOT_FOUND', `--tid ${tid}: no such ticket of event ${event.eid} ("${event.name}")`);
    tickets.push(asExportTicket(row as unknown as Record<string, unknown>));
  }
  return tickets;
}

/** --out: made if missing (its parent must exist), so a typo does not scatter files; a file there is refused. */
function prepareOutDir(out: string): void {
  const stat = fs.statSync(out, { throwIfNoEntry: false });
  if (stat === undefined) {
    if (!fs.statSync(path.dirname(out), { throwIfNoEntry: false })?.isDirectory())
      throw new AdminError('INVALID_ARGUMENT', `--out ${out}: its parent folder does not exist`);
    makePrivateDir(out);
  } else if (!stat.isDirectory()) throw new AdminError('INVALID_ARGUMENT', `--out ${out} is a file, not a folder`);
}

/**
 * A file written in many small chunks (the PDF: a line each as pdfkit draws; the list: a row a ticket):
 * they are copied into a block written to the file a megabyte at a time, synchronously, so nothing piles up.
 */
class OutputFile {
  private readonly fd: number;
  private readonly block = Buffer.allocUnsafe(PDF_WRITE_BYTES);
  private used = 0;

  constructor(private readonly file: string) {
    this.fd = openPrivateFile(file);
  }

  write(chunk: Buffer): void {
    if (this.used + chunk.length > this.block.length) this.flush();
    if (chunk.length >= this.block.length) this.writeAll(chunk);
    else {
      chunk.copy(this.block, this.used);
      this.used += chunk.length;
    }
  }

  /** After the last chunk. */
  close(): void {
    this.flush();
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
  }

  /** A failed export leaves no half-written file behind. */
  abandon(): void {
    fs.closeSync(this.fd);
    fs.rmSync(this.file, { force: true });
  }

  private flush(): void {
    this.writeAll(this.block.subarray(0, this.used));
    this.used = 0;
  }

  private writeAll(bytes: Buffer): void {
    for (let written = 0; written < bytes.length;) written += fs.writeSync(this.fd, bytes, written);
  }
}
