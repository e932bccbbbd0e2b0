/**
 * issuer/admin/pdfkit-streaming.ts leans on pdfkit's internals (the version pinned in package.json): these
 * tests fail if an upgrade changes them. A document made through it must be byte for byte the document
 * pdfkit makes on its own, and the pages it lets go of must really be let go of.
 */
import PDFDocument from 'pdfkit';
import { describe, expect, it } from 'vitest';
import { releaseWrittenPages, sendOutputTo } from '../../../issuer/admin/pdfkit-streaming.js';
import { qrBitmapPng } from '../../../issuer/admin/ticket-pdf.js';

const PAGES = 3;

/** The same three pages each time (a fixed date, so the file ID is the same too), each with text and an image. */
function newDocument(): PDFKit.PDFDocument {
  return new PDFDocument({ autoFirstPage: false, size: 'A6', info: { CreationDate: new Date(Date.UTC(2026, 10, 26)) } });
}

function drawPage(doc: PDFKit.PDFDocument, n: number): void {
  doc.addPage();
  doc.text(`Page ${n}`, 20, 20);
  doc.image(qrBitmapPng(`ticket ${n}`).png, 20, 60, { width: 100, height: 100 });
}

/** pdfkit on its own: read from its Readable side. */
async function plainPdf(): Promise<Buffer> {
  const doc = newDocument();
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => doc.on('end', resolve));
  for (let n = 1; n <= PAGES; n++) drawPage(doc, n);
  doc.end();
  await ended;
  return Buffer.concat(chunks);
}

type Kids = Record<string, unknown>[];
const kidsOf = (doc: PDFKit.PDFDocument): Kids =>
  (doc as unknown as { _root: { data: { Pages: { data: { Kids: Kids } } } } })._root.data.Pages.data.Kids;

describe('pdfkit-streaming (pdfkit internals)', () => {
  it('sends every byte to the writer as it is made, and lets go of written pages: the same PDF as pdfkit alone', async () => {
    const doc = newDocument();
    const chunks: Buffer[] = [];
    sendOutputTo(doc, (chunk) => chunks.push(chunk));
    expect(Buffer.concat(chunks).toString('latin1')).toMatch(/^%PDF-1\.3\n/); // written by the constructor, before
    let released = 0;
    for (let n = 1; n <= PAGES; n++) {
      drawPage(doc, n);
      released = releaseWrittenPages(doc, released);
      // Every page but the one being drawn was written when it was added, and is let go of.
      expect(released).toBe(n - 1);
    }
    const kids = kidsOf(doc);
    expect(kids).toHaveLength(PAGES);
    // A written page's entry keeps only its object number: no data (its resources, content, image) held.
    for (const kid of kids.slice(0, released)) expect(Object.keys(kid).sort()).toEqual(['gen', 'id']);
    expect(kids[PAGES - 1]).toHaveProperty('data'); // the page being drawn is pdfkit's own
    const written = Buffer.concat(chunks).length;
    expect(written).toBeGreaterThan(0); // the written pages are already out, before the end
    doc.end();
    expect(Buffer.concat(chunks).equals(await plainPdf())).toBe(true);
  });

  it("the page tree's stand-ins print as the references they replace", () => {
    const doc = newDocument();
    sendOutputTo(doc, () => {});
    drawPage(doc, 1);
    const first = kidsOf(doc)[0]!;
    const printed = String(first);
    expect(printed).toMatch(/^\d+ 0 R$/);
    drawPage(doc, 2);
    releaseWrittenPages(doc, 0);
    expect(kidsOf(doc)[0]).not.toBe(first);
    expect(String(kidsOf(doc)[0])).toBe(printed);
    expect(Object.getPrototypeOf(kidsOf(doc)[0])).toBe(Object.getPrototypeOf(first));
  });
});
