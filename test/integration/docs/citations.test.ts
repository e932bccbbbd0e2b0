/**
 * Every `docs/<file>.md "Section"` cited by a comment or a doc names a heading that exists in that file.
 * Comments say why and cite the section of docs/*.md that states the rule; a citation of a section that was
 * renamed or never written sends the reader nowhere, so this test lists each one as file:line.
 *
 * Forms recognised: `docs/kiosk.md "A"`, `docs/kiosk.md, "A"`, lists `docs/kiosk.md "A", "B" and "C"`, a link to
 * a heading's anchor (`docs/kiosk.md#staff-pin`), and a citation wrapped over comment lines (the next line's `*`, `//`, `#` or `--` is read as a space). A quote after
 * a colon (`docs/kiosk-screens.md: "or until the next scan"`) quotes words of the page, not a section.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Text files a comment or a doc can be in; the build output and the lock file are not ours to cite from. */
const SCANNED = /\.(ts|cts|mts|js|cjs|mjs|md|html|css|sh|ya?ml)$/;
const NOT_SCANNED = /^(node_modules|dist|release)\//;
/** This file: its samples cite sections that do not exist, on purpose. */
const SELF = path.relative(ROOT, fileURLToPath(import.meta.url)).split(path.sep).join('/');

interface Citation {
  readonly file: string;
  readonly line: number;
  readonly doc: string;
  readonly section: string;
}

/** The repository's files as git knows them, tracked or new (not ignored), so a file just added is checked too; a file moved away is not. */
function sourceFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return [...new Set(listed.split('\n'))].filter((file) => SCANNED.test(file) && !NOT_SCANNED.test(file) && file !== SELF && existsSync(path.join(ROOT, file))).sort();
}

/** A comment line's leading marker (`*`, `/**`, `//`, `#`, `--`, `>`), read as the space a wrapped sentence had. */
const LINE_PREFIX = /^\s*(?:\/\*+|\*+(?!\/)|\/\/+|#+|--|>)?\s*/;

const DOC = String.raw`docs/([a-z0-9-]+\.md)`;
const QUOTED = String.raw`"([^"\n]{1,120})"`;
const MORE = String.raw`(?:\s*(?:,|and|or)\s*"[^"\n]{1,120}")*`;
const CITATION = new RegExp(String.raw`\b${DOC}\`?,?\s+${QUOTED}${MORE}`, 'g');
/** A link to a heading's anchor: `docs/kiosk.md#revocation-list`. */
const ANCHOR = new RegExp(String.raw`\b${DOC}#([a-z0-9_-]+)`, 'g');
const QUOTED_ANYWHERE = /"([^"\n]{1,120})"/g;

/**
 * The citations in one file's text. Lines are joined first (each without its comment marker), so a section
 * name wrapped over two comment lines is read whole; each citation reports the line its `docs/` starts on.
 */
function citationsIn(file: string, text: string): Citation[] {
  const starts: number[] = [];
  let joined = '';
  for (const line of text.split('\n')) {
    starts.push(joined.length);
    joined += line.replace(LINE_PREFIX, '') + ' ';
  }
  const lineAt = (offset: number): number => {
    let low = 0;
    while (low + 1 < starts.length && starts[low + 1]! <= offset) low += 1;
    return low + 1;
  };
  const found: Citation[] = [];
  for (const match of joined.matchAll(CITATION)) {
    const line = lineAt(match.index);
    const doc = `docs/${match[1]!}`;
    const quoted = match[0].slice(match[0].indexOf('"'));
    for (const section of quoted.matchAll(QUOTED_ANYWHERE)) found.push({ file, line, doc, section: section[1]!.trim().replace(/\s+/g, ' ') });
  }
  for (const match of joined.matchAll(ANCHOR)) found.push({ file, line: lineAt(match.index), doc: `docs/${match[1]!}`, section: `#${match[2]!}` });
  return found;
}

/** Headings of every level, outside fenced code blocks, with their inline markup as written. */
function headingsOf(markdown: string): string[] {
  const headings: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) headings.push(heading[1]!);
  }
  return headings;
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/**
 * A citation names a heading by its whole text or by its short name: the words before its first `:`, `,` or
 * ` (` (`"Enrollment"` for `## Enrollment (\`POST /api/v1/scanners/enroll\`)`, `"QR codes"` for
 * `## QR codes: setup, calibration, tickets`), or a lettered heading by its letter (`"(h)"` for
 * `## (h) \`ticket export\` to PDF`). Backticks do not count: `"Late scans are ordered by scanned_at"` names
 * `### Late scans are ordered by \`scanned_at\``.
 */
function namesHeading(section: string, headings: readonly string[]): boolean {
  if (section.startsWith('#')) return headings.some((heading) => `#${anchorOf(heading)}` === section);
  const cited = section.replaceAll('`', '');
  return headings.some((written) => {
    const heading = written.replaceAll('`', '');
    if (heading === cited) return true;
    const shortName = /^(.+?)(?::|,| \()/.exec(heading)?.[1];
    if (shortName === cited) return true;
    return /^\([a-z0-9]+\)$/.test(cited) && heading.startsWith(`${cited} `);
  });
}

describe('citations of docs/*.md sections', () => {
  it('reads the forms the code and the docs write', () => {
    const sample = [
      '/** Idempotent (docs/protocol.md "Precedence"); the kiosk side (docs/kiosk.md, "Offline queue"). */',
      ' * Several at once (docs/kiosk.md "Staff PIN", "Door lanes" and "Calibration").',
      ' * Wrapped over two lines (docs/protocol.md "Errors',
      " * outside the spec's tables\").",
      '// A quote of the page, not a section (docs/kiosk-screens.md: "or until the next scan").',
      'See `docs/issuer.md` "Moving an issuer to the venue and back", or [there](docs/issuer.md#serving-nodes).',
      'Plain prose with docs/issuer.md mentioned but nothing cited.',
    ].join('\n');
    expect(citationsIn('sample.ts', sample)).toEqual([
      { file: 'sample.ts', line: 1, doc: 'docs/protocol.md', section: 'Precedence' },
      { file: 'sample.ts', line: 1, doc: 'docs/kiosk.md', section: 'Offline queue' },
      { file: 'sample.ts', line: 2, doc: 'docs/kiosk.md', section: 'Staff PIN' },
      { file: 'sample.ts', line: 2, doc: 'docs/kiosk.md', section: 'Door lanes' },
      { file: 'sample.ts', line: 2, doc: 'docs/kiosk.md', section: 'Calibration' },
      { file: 'sample.ts', line: 3, doc: 'docs/protocol.md', section: "Errors outside the spec's tables" },
      { file: 'sample.ts', line: 6, doc: 'docs/issuer.md', section: 'Moving an issuer to the venue and back' },
      { file: 'sample.ts', line: 6, doc: 'docs/issuer.md', section: '#serving-nodes' },
    ]);
  });

  it('knows a heading by its words, its short name, its letter or its anchor', () => {
    const headings = headingsOf(
      [
        '# Title',
        '## Enrollment (`POST /api/v1/scanners/enroll`)',
        '### (h) `ticket export` to PDF',
        '## QR codes: setup, calibration, tickets',
        '### Late scans are ordered by `scanned_at`',
        '```',
        '# not a heading',
        '```',
      ].join('\n'),
    );
    expect(headings).toEqual([
      'Title',
      'Enrollment (`POST /api/v1/scanners/enroll`)',
      '(h) `ticket export` to PDF',
      'QR codes: setup, calibration, tickets',
      'Late scans are ordered by `scanned_at`',
    ]);
    expect(namesHeading('Enrollment', headings)).toBe(true);
    expect(namesHeading('Enrollment (`POST /api/v1/scanners/enroll`)', headings)).toBe(true);
    expect(namesHeading('(h)', headings)).toBe(true);
    expect(namesHeading('(h) `ticket export` to PDF', headings)).toBe(true);
    expect(namesHeading('QR codes', headings)).toBe(true);
    expect(namesHeading('Late scans are ordered by scanned_at', headings)).toBe(true);
    expect(namesHeading('Enroll', headings)).toBe(false);
    expect(namesHeading('Late scans', headings)).toBe(false);
    expect(namesHeading('QR', headings)).toBe(false);
    expect(namesHeading('not a heading', headings)).toBe(false);
    expect(namesHeading('#enrollment-post-apiv1scannersenroll', headings)).toBe(true);
    expect(namesHeading('#qr-codes-setup-calibration-tickets', headings)).toBe(true);
    expect(namesHeading('#qr-codes', headings)).toBe(false);
  });

  it('every cited docs file exists and every cited section is one of its headings', () => {
    const headings = new Map<string, string[] | null>();
    const headingsOfDoc = (doc: string): string[] | null => {
      if (!headings.has(doc)) headings.set(doc, existsSync(path.join(ROOT, doc)) ? headingsOf(readFileSync(path.join(ROOT, doc), 'utf8')) : null);
      return headings.get(doc)!;
    };
    const citations = sourceFiles().flatMap((file) => citationsIn(file, readFileSync(path.join(ROOT, file), 'utf8')));
    const broken = citations.flatMap(({ file, line, doc, section }) => {
      const known = headingsOfDoc(doc);
      if (known === null) return [`${file}:${line}: ${doc} does not exist`];
      return namesHeading(section, known) ? [] : [`${file}:${line}: ${doc} has no section "${section}"`];
    });
    // The matcher must keep finding the citations the code is full of: a pattern that matched nothing would pass.
    expect(citations.length).toBeGreaterThan(200);
    expect(broken).toEqual([]);
  });
});
