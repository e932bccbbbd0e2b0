/**
 * One printable ticket per PDF page (`ticket export`, docs/issuer.md "Tickets
 * you can send"): the event, venue, date and time in a named time zone, the
 * holder and ticket type, the QR code and a short ticket id.
 *
 * - The QR code is an image of one pixel per module (quiet zone included,
 *   1 bit per pixel, drawn without interpolation), placed and scaled on a grid
 *   of 1/50 inch per module: 3 device pixels per module at 150 dpi, 6 at 300,
 *   12 at 600, so every module comes out whole. The symbol is at least 35 mm
 *   wide on A6 and grows with the page.
 * - Text is set in DejaVu Sans (Latin, Greek, Cyrillic and much more), and
 *   what DejaVu lacks in Noto Sans SC (Chinese, Japanese kana) or Noto Sans
 *   KR (Korean Hangul), taken per character from the @fontsource packages'
 *   unicode-range chunks, each loaded only when a name needs it. pdfkit embeds
 *   only the glyphs used (subsets). A character neither covers is drawn as "?"
 *   and counted (the caller warns and the page says so): never silently dropped.
 * - The document is written as it is made, straight to the caller's `write`,
 *   and each page's objects are let go once written (issuer/admin/pdfkit-streaming.ts),
 *   so memory does not grow with the number of pages.
 * - Speed (docs/benchmarks.md "(h) `ticket export` to PDF"): the QR code is
 *   encoded by `qr`, about ten times faster than `qrcode` for a ticket (the
 *   symbol is the same version and error correction; its mask may differ,
 *   which any reader handles), and text widths are cached, since most lines
 *   repeat from page to page.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as fontkit from 'fontkit';
import { releaseWrittenPages, sendOutputTo } from './pdfkit-streaming.js';
import { QUIET_ZONE_MODULES, qrPng } from './qr.js';
import { visualOrder, wrapWords } from './ticket-pdf-text.js';

/** Text widths remembered (per font, at size 1), at most: the cache is emptied when full. */
const WIDTH_CACHE_SIZE = 1000;

export const PAGE_SIZES = {
  a6: [297.64, 419.53],
  a4: [595.28, 841.89],
  letter: [612, 792],
} as const;
export type PageSize = keyof typeof PAGE_SIZES;

/** Points per QR module at the smallest: 1/50 inch (0.508 mm), a whole number of pixels at 150, 300 and 600 dpi. */
const MODULE_GRID_PT = 72 / 50;
const MM = 72 / 25.4;
/** The symbol (without its quiet zone) is at least this wide on A6; larger pages scale it up. */
export const MIN_QR_MM = 35;
/**
 * A holder's name wraps onto at most this many lines (docs/issuer.md "Tickets you can send"), shrinking
 * first; beyond, it is cut with a visible "…", the whole name still in the page's text layer.
 */
export const HOLDER_MAX_LINES = 2;
/** The smallest a name is set, of its 14 pt (7.7 pt on A6): the kiosk's floor too (docs/kiosk.md "Holder names"). */
export const HOLDER_MIN_SHRINK = 0.55;

const requireFrom = createRequire(import.meta.url);
const DEJAVU_DIR = path.join(path.dirname(requireFrom.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
/** The fallbacks after DejaVu, in order: Noto Sans SC (Chinese, Japanese kana), then Noto Sans KR (Korean Hangul). */
const CJK_FAMILIES = ['noto-sans-sc', 'noto-sans-kr'] as const;
const cjkDir = (family: string): string => path.dirname(requireFrom.resolve(`@fontsource/${family}/unicode.json`));

const FONT_FILES = {
  sans: path.join(DEJAVU_DIR, 'DejaVuSans.ttf'),
  bold: path.join(DEJAVU_DIR, 'DejaVuSans-Bold.ttf'),
  mono: path.join(DEJAVU_DIR, 'DejaVuSansMono.ttf'),
  monoBold: path.join(DEJAVU_DIR, 'DejaVuSansMono-Bold.ttf'),
} as const;

type Weight = 'regular' | 'bold';

/** What fills in for DejaVu: the Noto chunks, each with the code points it holds (its unicode-range). */
interface CjkChunk {
  family: string;
  name: string;
  ranges: [number, number][];
  fonts: Partial<Record<Weight, fontkit.Font>>;
}

let cjkChunks: CjkChunk[] | undefined;

function loadCjkChunks(): CjkChunk[] {
  if (cjkChunks) return cjkChunks;
  cjkChunks = CJK_FAMILIES.flatMap((family) =>
    Object.entries(JSON.parse(fs.readFileSync(path.join(cjkDir(family), 'unicode.json'), 'utf8')) as Record<string, string>)
      .filter(([name]) => /^\[\d+\]$/.test(name))
      .map(([name, ranges]) => ({
        family,
        name: name.slice(1, -1),
        ranges: ranges.split(',').map((range) => {
          const [from, to] = range.trim().replace(/^U\+/i, '').split('-');
          return [parseInt(from!, 16), parseInt(to ?? from!, 16)] as [number, number];
        }),
        fonts: {},
      })),
  );
  return cjkChunks;
}

const cjkFile = (chunk: CjkChunk, weight: Weight): string =>
  path.join(cjkDir(chunk.family), 'files', `${chunk.family}-${chunk.name}-${weight === 'bold' ? 700 : 400}-normal.woff`);

/**
 * pdfkit and fontkit, loaded the first time a PDF is made: together they take about 0.4 s to load,
 * and every other command of the CLI would pay it at start.
 */
interface PdfLibraries {
  PDFDocument: typeof import('pdfkit');
  fontkit: typeof fontkit;
}

let pdfLibraries: PdfLibraries | undefined;

async function loadPdfLibraries(): Promise<PdfLibraries> {
  if (pdfLibraries) return pdfLibraries;
  const [pdfkit, fontkitModule] = await Promise.all([import('pdfkit'), import('fontkit')]);
  return (pdfLibraries = { PDFDocument: pdfkit.default, fontkit: fontkitModule });
}

function openFont(libraries: PdfLibraries, file: string): fontkit.Font {
  const font = libraries.fontkit.openSync(file);
  if (!('hasGlyphForCodePoint' in font)) throw new Error(`${file} is a font collection, not one font`);
  return font;
}

/** A stretch of text drawn in one font. `font` is a name registered with the document. */
interface Run {
  font: string;
  text: string;
}

export interface TicketPage {
  tid: string;
  qr: string;
  holder: string | null;
  type: string | null;
}

export interface EventDetails {
  name: string;
  venue: string;
  /** The event's start as printed, in the chosen time zone (eventTimeText). */
  when: string;
}

/** The short ticket id printed for manual lookup: the last 8 characters of the ULID (its random part), as XXXX-XXXX. */
export const shortTicketId = (tid: string): string => `${tid.slice(-8, -4)}-${tid.slice(-4)}`;

/** The event's start in `timeZone`, with the zone named and its offset, e.g. "Tue, 1 Dec 2026, 19:00 Europe/Berlin (UTC+01:00)" or "…, 18:00 UTC". */
export function eventTimeText(iso: string, timeZone: string): string {
  const at = new Date(iso);
  const date = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' }).format(at);
  const time = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);
  if (timeZone === 'UTC') return `${date}, ${time} UTC`;
  const offset =
    new Intl.DateTimeFormat('en-GB', { timeZone, timeZoneName: 'longOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName')
      ?.value ?? 'GMT';
  return `${date}, ${time} ${timeZone} (${offset === 'GMT' ? 'UTC+00:00' : offset.replace('GMT', 'UTC')})`;
}

/**
 * The QR code as a PNG of one pixel per module, quiet zone included, 1 bit per pixel, stored without
 * compression: pdfkit embeds its data as it is (no re-encoding), so a page costs little more than encoding
 * the symbol (issuer/admin/qr.ts qrPng says why not deflated).
 */
export const qrBitmapPng = (text: string): { png: Buffer; side: number } => qrPng(text, 1, 'stored');

/** A PDF of tickets, one per page, handed to `write` as pages are added. */
export class TicketPdf {
  private readonly doc: PDFKit.PDFDocument;
  private readonly width: number;
  private readonly height: number;
  private readonly scale: number;
  private readonly fonts: Record<'sans' | 'bold', fontkit.Font>;
  private readonly registered = new Set<string>();
  private pages = 0;
  /** Pages let go of once written (releaseWrittenPages). */
  private released = 0;
  /** Characters no bundled font has, on the page being drawn. */
  private missing = 0;
  /** Text widths at size 1, by font and text: laying text out is most of a page's cost, and most lines repeat. */
  private widths = new Map<string, number>();

  /** A new PDF; `write` gets every byte of it, in order, as it is made. */
  static async open(page: PageSize, event: EventDetails, title: string, write: (chunk: Buffer) => void): Promise<TicketPdf> {
    return new TicketPdf(await loadPdfLibraries(), page, event, title, write);
  }

  private constructor(
    private readonly libraries: PdfLibraries,
    page: PageSize,
    private readonly event: EventDetails,
    title: string,
    write: (chunk: Buffer) => void,
  ) {
    [this.width, this.height] = PAGE_SIZES[page];
    this.scale = Math.min(this.width / PAGE_SIZES.a6[0], this.height / PAGE_SIZES.a6[1]);
    this.doc = new libraries.PDFDocument({
      size: [this.width, this.height],
      margin: 0,
      autoFirstPage: false,
      // A layout cache per string would keep every page's ticket id for good: memory must stay flat.
      fontLayoutCache: false,
      info: { Title: title, Creator: 'ticket-issuer', Producer: 'ticket-issuer (pdfkit)' },
    });
    sendOutputTo(this.doc, write);
    for (const [name, file] of Object.entries(FONT_FILES)) this.register(name, file);
    this.fonts = { sans: openFont(libraries, FONT_FILES.sans), bold: openFont(libraries, FONT_FILES.bold) };
  }

  /** Draws one ticket on a new page; returns how many characters of its texts no font could draw (shown as "?"). */
  addTicket(ticket: TicketPage): number {
    this.doc.addPage({ size: [this.width, this.height], margin: 0 });
    this.released = releaseWrittenPages(this.doc, this.released);
    this.pages++;
    this.missing = 0;
    const s = this.scale;
    const margin = 16 * s;
    const inner = this.width - 2 * margin;
    const doc = this.doc;
    let y = margin;

    y += this.line(this.event.name, 'bold', 15 * s, margin, y, inner) + 3 * s;
    y += this.line(this.event.venue, 'regular', 10 * s, margin, y, inner) + 2 * s;
    y += this.line(this.event.when, 'regular', 9 * s, margin, y, inner) + 6 * s;
    doc
      .moveTo(margin, y)
      .lineTo(this.width - margin, y)
      .lineWidth(0.75 * s)
      .strokeColor('#000000')
      .stroke();
    y += 6 * s;
    y += this.line(ticket.holder ?? '(no name)', 'bold', 14 * s, margin, y, inner, HOLDER_MAX_LINES, HOLDER_MIN_SHRINK) + 2 * s;
    y += this.line(ticket.type ?? 'Admission', 'regular', 11 * s, margin, y, inner) + 4 * s;

    // The QR code: whole grid units per module, on the grid, centred.
    const { png, side } = qrBitmapPng(ticket.qr);
    const symbol = side - 2 * QUIET_ZONE_MODULES;
    const perModule = MODULE_GRID_PT * Math.ceil((MIN_QR_MM * MM * s) / (symbol * MODULE_GRID_PT));
    const sidePt = side * perModule;
    const snap = (value: number): number => Math.round(value / MODULE_GRID_PT) * MODULE_GRID_PT;
    const qrX = snap((this.width - sidePt) / 2);
    const qrY = snap(y);
    doc.image(png, qrX, qrY, { width: sidePt, height: sidePt });
    y = qrY + sidePt + 2 * s;

    doc
      .font('sans')
      .fontSize(7 * s)
      .fillColor('#000000');
    this.centred('Ticket ID', 'sans', 7 * s, y);
    y += 9 * s;
    this.centred(shortTicketId(ticket.tid), 'monoBold', 16 * s, y);
    y += 19 * s;
    this.centred(ticket.tid, 'mono', 7 * s, y);
    y += 10 * s;
    if (this.missing > 0) {
      this.centred('Some characters of this ticket cannot be printed (shown as ?): the QR code is unaffected.', 'sans', 6 * s, y);
    }
    return this.missing;
  }

  get pageCount(): number {
    return this.pages;
  }

  /** Writes the rest of the document (the last page, fonts, cross-reference table). A PDF needs a page: with no ticket it has an empty one. */
  finish(): void {
    if (this.pages === 0) this.doc.addPage();
    this.doc.end();
  }

  private register(name: string, file: string): void {
    if (this.registered.has(name)) return;
    this.doc.registerFont(name, file);
    this.registered.add(name);
  }

  /**
   * Text at (x, y), wrapped at spaces into at most `maxLines` lines (shrunk to no less than `minShrink` of
   * `size` first, then cut with "…"), each word drawn alone in visual order (./ticket-pdf-text.ts says why);
   * returns the height used. A cut line is a marked-content span whose /ActualText is the rest of the text
   * (PDF 1.7, 14.9.4 "Replacement Text"), so extracting, searching or copying the page gives the whole
   * text, though the page shows "…".
   */
  private line(text: string, weight: Weight, size: number, x: number, y: number, maxWidth: number, maxLines = 1, minShrink = 0.4): number {
    const primary = weight === 'bold' ? 'bold' : 'sans';
    const unit = (word: string): number => this.widthOf(this.runs(word, weight, false), 1);
    const space = this.widthOfText(primary, ' ');
    const full = wrapWords(text, Infinity, 1, unit, space);
    const natural = full.lines[0] ? full.lines[0].reduce((sum, word, i) => sum + unit(word) + (i > 0 ? space : 0), 0) : 0;
    // Shrink first: to fit one line (titles), or as far as the floor before a long name takes more lines.
    let fontSize = Math.max(size * minShrink, Math.min(size, (size * maxWidth) / Math.max(natural * size, 1e-9)));
    if (maxLines > 1 && natural * size > maxWidth) {
      fontSize = size;
      while (fontSize > size * minShrink && wrapWords(text, maxWidth / fontSize, maxLines, unit, space).cut) fontSize *= 0.9;
      fontSize = Math.max(fontSize, size * minShrink);
    }
    const { lines, rest } = wrapWords(text, maxWidth / fontSize, maxLines, unit, space);
    let top = y;
    for (const [index, words] of lines.entries()) {
      const replaced = rest !== undefined && index === lines.length - 1;
      if (replaced) this.doc.markContent('Span', { actual: rest });
      let at = x;
      for (const word of visualOrder(words)) {
        for (const run of this.runs(word, weight)) {
          this.doc.font(run.font).fontSize(fontSize).fillColor('#000000');
          this.doc.text(run.text, at, top, { lineBreak: false });
          at += this.widthOfText(run.font, run.text) * fontSize;
        }
        at += space * fontSize;
      }
      if (replaced) this.endReplacement(fontSize);
      top += fontSize * 1.2;
    }
    return Math.max(top - y, fontSize * 1.2);
  }

  /**
   * Ends a replacement span under the graphics state its glyphs were drawn in (pdfkit draws each text in
   * `q`, an unflipped matrix, `BT … ET`, `Q`): poppler places the replacement text with the state current at
   * EMC, so the matrix and a font size are set again for it, inside q … Q, and nothing is drawn.
   */
  private endReplacement(fontSize: number): void {
    const doc = this.doc as PDFKit.PDFDocument & { addContent(data: string): void; _font: { id: string } };
    doc.save();
    doc.transform(1, 0, 0, -1, 0, this.height);
    doc.addContent(`BT /${doc._font.id} ${fontSize.toFixed(3)} Tf ET`);
    doc.endMarkedContent();
    doc.restore();
  }

  private centred(text: string, font: string, size: number, y: number): void {
    const width = this.widthOfText(font, text) * size;
    this.doc.font(font).fontSize(size).fillColor('#000000');
    this.doc.text(text, (this.width - width) / 2, y, { lineBreak: false });
  }

  private widthOf(runs: Run[], size: number): number {
    let width = 0;
    for (const run of runs) width += this.widthOfText(run.font, run.text) * size;
    return width;
  }

  /** The width of `text` in `font` at size 1 (widths grow in proportion to the size), cached. It sets the document's font: set it again before drawing. */
  private widthOfText(font: string, text: string): number {
    const key = `${font}\n${text}`;
    let width = this.widths.get(key);
    if (width === undefined) {
      if (this.widths.size >= WIDTH_CACHE_SIZE) this.widths = new Map();
      width = this.doc.font(font).fontSize(1).widthOfString(text);
      this.widths.set(key, width);
    }
    return width;
  }

  /** The text cut into runs of one font each: DejaVu where it has the glyph, else a Noto Sans SC or KR chunk, else "?". */
  private runs(text: string, weight: Weight, count = true): Run[] {
    const primary = weight === 'bold' ? 'bold' : 'sans';
    const runs: Run[] = [];
    for (const char of text) {
      const codePoint = char.codePointAt(0)!;
      let font: string = primary;
      let drawn = char;
      if (!this.fonts[primary].hasGlyphForCodePoint(codePoint) && !/\s/.test(char)) {
        const fallback = this.cjkFont(codePoint, weight);
        if (fallback === null) {
          drawn = '?';
          if (count) this.missing++;
        } else font = fallback;
      }
      const last = runs.at(-1);
      if (last?.font === font) last.text += drawn;
      else runs.push({ font, text: drawn });
    }
    return runs;
  }

  private cjkFont(codePoint: number, weight: Weight): string | null {
    for (const chunk of loadCjkChunks()) {
      if (!chunk.ranges.some(([from, to]) => codePoint >= from && codePoint <= to)) continue;
      const file = cjkFile(chunk, weight);
      const font = (chunk.fonts[weight] ??= openFont(this.libraries, file));
      if (!font.hasGlyphForCodePoint(codePoint)) continue;
      const name = `${chunk.family}-${chunk.name}-${weight}`;
      this.register(name, file);
      return name;
    }
    return null;
  }
}
