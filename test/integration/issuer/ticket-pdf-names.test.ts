/**
 * Holder names printed in full on the ticket PDF (docs/issuer.md "Tickets you can send"), read back by
 * poppler's pdftotext word by word (-tsv: each word with its box): right-to-left names keep the gap
 * between their words and come in right-to-left order, a mixed line keeps each stretch in its order,
 * an 80-character name wraps onto more lines and is printed whole, and only a name beyond three lines is
 * cut, with a visible "…".
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TicketPdf } from '../../../issuer/admin/ticket-pdf.js';

const TID = '01HZZZZZZZZZZZZZZZZZZZZZZZ';
const LONG = 'Bartholomew-Maximilian von Hohenzollern-Sigmaringen Wolfgang Amadeus Theodorus A';
const HOLDERS = ['محمد علي', 'שלום עליכם', 'Anna محمد علي Smith', LONG, `${'Wolfgang '.repeat(40)}End`];

interface Word {
  line: number;
  x: number;
  y: number;
  text: string;
}

let pages: Word[][];

/** A word as pdftotext gives it is in drawing order: a right-to-left word reads reversed. */
const logical = (text: string): string => (/[\u0590-\u08FF]/u.test(text) ? [...text].reverse().join('') : text);

beforeAll(async () => {
  // poppler-utils comes with scripts/install-system-deps.sh: without it this test cannot read a PDF.
  expect(() => execFileSync('which', ['pdftotext']), 'pdftotext (apt poppler-utils) must be installed').not.toThrow();
  const chunks: Buffer[] = [];
  const pdf = await TicketPdf.open('a6', { name: 'Event', venue: 'Venue', when: 'When' }, 'Tickets', (chunk) => chunks.push(chunk));
  for (const holder of HOLDERS) expect(pdf.addTicket({ tid: TID, qr: 'ticket', holder, type: 'Seat' })).toBe(0);
  pdf.finish();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ticket-pdf-names-')), 'tickets.pdf');
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

  it('an 80-character name wraps and is printed whole, without a cut mark', () => {
    expect(LONG).toHaveLength(80);
    const lines = holderLines(pages[3]!);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.length).toBeLessThanOrEqual(3);
    expect(lines.flat().join(' ')).toBe(LONG);
  });

  it('a name beyond three lines is cut, and the cut shows "…"', () => {
    const lines = holderLines(pages[4]!);
    expect(lines).toHaveLength(3);
    const printed = lines.flat().join(' ');
    expect(printed.endsWith('…')).toBe(true);
    expect(HOLDERS[4]!.startsWith(printed.slice(0, -1))).toBe(true);
  });
});
