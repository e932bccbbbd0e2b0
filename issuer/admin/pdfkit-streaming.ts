/**
 * A pdfkit document of any number of pages in flat memory (`ticket export`, docs/issuer.md "Tickets you
 * can send"; measured in docs/benchmarks.md "(h) `ticket export` to PDF").
 *
 * pdfkit writes each page's objects when the next page is added, but keeps for the document's end:
 * - the page tree's Kids list: each page's dictionary object, which holds its resources and content objects
 *   with their data (the page's image, fonts, the drawing) and the buffers and numbers around them: about
 *   a kilobyte a page. Only "N 0 R" of it is needed at the end, to write the page tree.
 * - what it writes, in its Readable side, until someone reads it; and each push schedules a 'readable'
 *   event on the next tick, a queue that a loop which never yields to the event loop only grows. At the end
 *   it writes the cross-reference table in one go: five lines a page, each its own Buffer.
 *
 * These functions rely on pdfkit's internals (pdfkit's version is pinned in package.json);
 * test/unit/issuer/pdfkit-streaming.test.ts fails if an upgrade changes them.
 */

/** The parts of a pdfkit object reference used here: written once `offset` is set; prints as "id gen R". */
interface PdfReference {
  id: number;
  gen: number;
  offset?: number;
  data: Record<string, unknown>;
}

interface PdfkitInternals {
  /** Readable.push, through which pdfkit's _write hands over every line and stream it writes (null at the end). */
  push(chunk: Buffer | null): boolean;
  _root: { data: { Pages: { data: { Kids: PdfReference[] } } } };
}

const internals = (doc: PDFKit.PDFDocument): PdfkitInternals => doc as unknown as PdfkitInternals;

/**
 * Everything the document writes goes to `write` as it is written, instead of the document's Readable
 * side (read nothing from it then): no buffering, no 'readable' event per chunk, and the end's
 * cross-reference table streams out like the pages.
 */
export function sendOutputTo(doc: PDFKit.PDFDocument, write: (chunk: Buffer) => void): void {
  // What the document wrote before this (its header, from its constructor) waits in its Readable side.
  for (let chunk = doc.read() as Buffer | null; chunk !== null; chunk = doc.read() as Buffer | null) write(chunk);
  internals(doc).push = (chunk) => {
    if (chunk !== null) write(chunk);
    return true;
  };
}

/**
 * Lets go of the pages already written (every page but the one being drawn, once the next page is added):
 * each written page's entry in the page tree's Kids becomes a stand-in with only its object number, which
 * prints the same "N 0 R" (it keeps the reference's prototype, whose toString writes it). Returns the
 * count of pages let go so far, where the next call starts.
 */
export function releaseWrittenPages(doc: PDFKit.PDFDocument, releasedSoFar: number): number {
  const kids = internals(doc)._root.data.Pages.data.Kids;
  let released = releasedSoFar;
  for (; released < kids.length; released++) {
    const page = kids[released]!;
    if (page.offset === undefined) break; // not written yet: the page being drawn
    kids[released] = pageNumberOnly(page);
  }
  return released;
}

function pageNumberOnly(page: PdfReference): PdfReference {
  const standIn = Object.create(Object.getPrototypeOf(page) as object) as PdfReference;
  standIn.id = page.id;
  standIn.gen = page.gen;
  return standIn;
}
