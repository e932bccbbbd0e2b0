/**
 * Holder names printed in full on the ticket PDF (docs/issuer.md "Tickets you can send"), read back by
 * poppler's pdftotext word by word (-tsv: each word with its box): right-to-left names keep the gap
 * between their words and come in right-to-left order, a mixed line keeps each stretch in its order,
 * 80-character names (Latin with spaces, one 80-letter word) wrap onto two lines and are printed whole,
 * and a name that two lines at the smallest size cannot hold (80 CJK characters, a 363-character one) is
 * cut on the page with a visible "…" while the PDF's text layer still has the whole name (the cut line's
 * /ActualText). pdftoppm renders each page: the name's ink stays inside the text box, in two rows at most.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TicketPdf } from '../../../issuer/admin/ticket-pdf.js';

const TID = '01HZZZZZZZZZZZZZZZZZZZZZZZ';
const LONG = 'Bartholomew-Maximilian von Hohenzollern-Sigmaringen Wolfgang Amadeus Theodorus A';
/** 80 letters and no space (test/e2e/holder-names.e2e.test.ts has it too), and 80 CJK characters. */
const LONG_WORD = 'Wolfeschlegelsteinhausenbergerdorffwelchevoralternwarengewissenhaftschaferswesen';
const CJK = '张伟李娜王芳刘洋陈静杨磊赵敏黄强周杰吴霞'.repeat(4);
const TOO_LONG = `${'Wolfgang '.repeat(40)}End`;
const HOLDERS = ['محمد علي', 'שלום עליכם', 'Anna محمد علي Smith', LONG, TOO_LONG, LONG_WORD, CJK];
/** A6 in points, the page's margin (issuer/admin/ticket-pdf.ts) and the resolution the pages are rendered at. */
const PAGE_WIDTH_PT = 297.64;
const MARGIN_PT = 16;
const DPI = 150;

interface Word {
  line: number;
  x: number;
  y: number;
  text: string;
}

let pages: Word[][];
let file: string;

/** A word as pdftotext gives it is in drawing order: a right-to-left word reads reversed. */
const logical = (text: string): string => (/[\u0590-\u08FF]/u.test(text) ? [...text].reverse().join('') : text);

beforeAll(async () => {
  // poppler-utils comes with scripts/install-system-deps.sh: without it this test cannot read a PDF.
  expect(() => execFileSync('which', ['pdftotext']), 'pdftotext (apt poppler-utils) must be installed').not.toThrow();
  const chunks: Buffer[] = [];
  const pdf = await TicketPdf.open('a6', { name: 'Event', venue: 'Venue', when: 'When' }, 'Tickets', (chunk) => chunks.push(chunk));
  for (const holder of HOLDERS) expect(pdf.addTicket({ tid: TID, qr: 'ticket', holder, type: 'Seat' })).toBe(0);
  pdf.finish();
  file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ticket-pdf-names-')), 'tickets.pdf');
  // The document is complete once pdfkit has written its trailer.
  for (let i = 0; i < 100 && !Buffer.concat(chunks).includes('%%EOF'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(Buffer.concat(chunks).includes('%%EOF'), 'the PDF is complete').toBe(true);
  fs.writeFileSync(file, Buffer.concat(chunks));
  pages = HOLDERS.map((_, i) => {
    const tsv = execFileSync('pdftotext', ['-f', String(i + 1), '-l', String(i + 1), '-tsv', file, '-'], { encoding: 'utf8' });
    return tsv
      .split('\n')
      .map((row) => row.split('\t'))
      .filter((cells) => cells[0] === '5' && cells[11])
      .map((cells) => ({ line: Number(cells[2]) * 100 + Number(cells[3]), x: Number(cells[6]), y: Number(cells[7]), text: cells[11]! }));
  });
});

/** The page's whole text as pdftotext gives it (the text layer), without spaces and line breaks. */
function pageText(page: number): string {
  return execFileSync('pdftotext', ['-f', String(page), '-l', String(page), file, '-'], { encoding: 'utf8' }).replace(/\s+/gu, '');
}

interface Ink {
  /** Rows of the holder's band that have ink, as runs: [first, last] pixel rows. */
  rows: [number, number][];
  left: number;
  right: number;
}

/**
 * What the page shows of the holder, rendered by pdftoppm (grey, DPI): the ink between the rule under the
 * date and the ticket type's line, its leftmost and rightmost dark pixel and its runs of inked pixel rows.
 */
function holderInk(index: number): Ink {
  const page = pages[index]!;
  const holderTop = Math.min(...page.filter((w) => w.y > page.find((x) => x.text === 'When')!.y).map((w) => w.y));
  const seat = page.find((word) => word.text === 'Seat')!.y;
  const out = path.join(path.dirname(file), `page-${index + 1}`);
  execFileSync('pdftoppm', ['-f', String(index + 1), '-l', String(index + 1), '-r', String(DPI), '-gray', '-singlefile', file, out]);
  const pgm = fs.readFileSync(`${out}.pgm`);
  // P5 <width> <height> <max>\n then one byte a pixel.
  const header = pgm
    .subarray(0, 64)
    .toString('latin1')
    .match(/^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/)!;
  const [width, offset] = [Number(header[1]), header[0].length];
  const px = DPI / 72;
  const rows: [number, number][] = [];
  let left = Infinity;
  let right = -Infinity;
  // From just above the name's first row (the rule is 6 pt higher) to just above the ticket type.
  for (let row = Math.round((holderTop - 3) * px); row < Math.floor((seat - 0.3) * px); row++) {
    let inked = false;
    for (let col = 0; col < width; col++) {
      if (pgm[offset + row * width + col]! >= 128) continue;
      inked = true;
      left = Math.min(left, col);
      right = Math.max(right, col);
    }
    if (!inked) continue;
    const last = rows.at(-1);
    if (last && last[1] === row - 1) last[1] = row;
    else rows.push([row, row]);
  }
  return { rows, left: left / px, right: right / px };
}

/** The name's ink is inside the text box (the page less its margins) and in one or two rows. */
function expectInsideTheBox(ink: Ink): void {
  expect(ink.left).toBeGreaterThanOrEqual(MARGIN_PT - 0.5);
  expect(ink.right).toBeLessThanOrEqual(PAGE_WIDTH_PT - MARGIN_PT + 0.5);
  expect(ink.rows.length).toBeGreaterThanOrEqual(1);
  expect(ink.rows.length).toBeLessThanOrEqual(2);
}

/** The holder's lines: everything between the venue/date block and the ticket type, top to bottom, each left to right. */
function holderLines(page: Word[]): string[][] {
  const start = page.find((word) => word.text === 'When')!.y;
  const end = page.find((word) => word.text === 'Seat')!.y;
  const rows = new Map<number, Word[]>();
  for (const word of page.filter((w) => w.y > start && w.y < end)) rows.set(word.y, [...(rows.get(word.y) ?? []), word]);
  return [...rows.entries()].sort(([a], [b]) => a - b).map(([, words]) => words.sort((a, b) => a.x - b.x).map((w) => logical(w.text)));
}

describe('holder names on the ticket PDF', () => {
  it('an Arabic name keeps the space between its words, read from the right', () => {
    expect(holderLines(pages[0]!)).toEqual([['علي', 'محمد']]);
  });

  it('a Hebrew name keeps the space between its words, read from the right', () => {
    expect(holderLines(pages[1]!)).toEqual([['עליכם', 'שלום']]);
  });

  it('a mixed name: Latin words left to right, the Arabic stretch between them right to left', () => {
    expect(holderLines(pages[2]!)).toEqual([['Anna', 'علي', 'محمد', 'Smith']]);
  });

  it('an 80-character name wraps onto two lines and is printed whole, without a cut mark', () => {
    expect(LONG).toHaveLength(80);
    const lines = holderLines(pages[3]!);
    expect(lines).toHaveLength(2);
    expect(lines.flat().join(' ')).toBe(LONG);
    expect(pageText(4)).not.toContain('…');
    expectInsideTheBox(holderInk(3));
  });

  it('80 letters without a space: split between characters onto two lines, whole', () => {
    expect([...LONG_WORD]).toHaveLength(80);
    const lines = holderLines(pages[5]!);
    expect(lines).toHaveLength(2);
    expect(lines.flat().join('')).toBe(LONG_WORD);
    expectInsideTheBox(holderInk(5));
  });

  it('80 CJK characters: cut on the page after two lines, the whole name in the text layer', () => {
    expect([...CJK]).toHaveLength(80);
    const lines = holderLines(pages[6]!);
    expect(lines).toHaveLength(2);
    // The first line as drawn, the second the cut line's /ActualText: the rest of the name, without "…".
    expect(lines.flat().join('')).toBe(CJK);
    expect(pageText(7)).toContain(CJK);
    expect(pageText(7)).not.toContain('…');
    const ink = holderInk(6);
    expectInsideTheBox(ink);
    expect(ink.rows).toHaveLength(2);
  });

  it('a name beyond two lines is cut on the page, its whole text still in the text layer', () => {
    const lines = holderLines(pages[4]!);
    expect(lines).toHaveLength(2);
    expect(lines.flat().join(' ')).toBe(TOO_LONG);
    expect(pageText(5)).toContain(TOO_LONG.replace(/\s+/gu, ''));
    const ink = holderInk(4);
    expectInsideTheBox(ink);
    expect(ink.rows).toHaveLength(2);
  });

  it('on the page, the cut line ends in "…": its ink reaches the line\'s end, past the last whole word', () => {
    // The visible cut is the layout's (issuer/admin/ticket-pdf-text.ts wrapWords, unit-tested): here, that the
    // rendering of the cut names is as wide as the line, so the mark is drawn and not lost off the page.
    for (const index of [4, 6]) expect(holderInk(index).right).toBeGreaterThan(PAGE_WIDTH_PT - MARGIN_PT - 20);
  });
});
