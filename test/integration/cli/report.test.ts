/**
 * `ticket-issuer report` on SQLite and on a throwaway PostgreSQL cluster, all real: the built CLI sets the
 * issuer up, a `serve` process answers scanners over loopback HTTP (test/support/report-seed.ts seeds an
 * evening through the check-in path), then the built CLI writes the report, and the numbers are read back
 * out of the HTML and the --json headline (docs/issuer.md "After-event report"). The same evening is then
 * reported in German (--lang) and French (the environment's LANG): translated, formatted for the language.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliFailure, runCli, serveCli } from '../../support/cli-harness.js';
import { BOTH_STORES, SERVE_FOR_SCANNERS, useIssuerOnStore, type Store } from '../../support/issuer-on-store.js';
import { reportTableRows, reportTile, seedEvening, type SeededEvening } from '../../support/report-seed.js';

const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

/** No language asked for, in the environment either: the report is in English. */
const NO_LANGUAGE = { LC_ALL: '', LC_MESSAGES: '', LANG: 'C.UTF-8' };

/** The English report's headings and labels: all in the English report, none left in a translated one. */
const ENGLISH = [
  'After-event report',
  'Totals',
  'Issued',
  'Inside at the end',
  'Arrivals per 5 minutes per gate',
  'Peak minute',
  'Every number',
  'Admitted offline',
  'Double admissions found at sync',
  'Forged, revoked and wrong-event attempts',
  'Problems at the doors',
  'Refused scan attempts',
  'Scanner uptime',
  'Synced late',
  'Made by ticket-issuer report',
];

const CHARTS = ['chart-arrivals', 'chart-offline-delay', 'chart-problems', 'chart-uptime'];

/** The text of every h1 and h2. */
const headings = (html: string): string[] => [...html.matchAll(/<h[12]>([^<]*)<\/h[12]>/g)].map((match) => match[1]!);

/** A report in `language`: its <html lang>, these section headings, no English heading or label left, every chart. */
function expectTranslated(html: string, language: string, sections: string[]): void {
  expect(html).toContain(`<html lang="${language}">`);
  expect(headings(html).slice(1)).toEqual(sections);
  for (const english of ENGLISH) expect(html, english).not.toContain(english);
  for (const id of CHARTS) expect(html, id).toContain(`<svg id="${id}"`);
}

describe.each<[Store]>(BOTH_STORES)('report on %s', (store) => {
  const issuer = useIssuerOnStore(store, 'Report Tests');
  let seeded: SeededEvening;
  let html: string;
  let headline: Record<string, unknown>;
  let stderr: string;
  let out: string;

  beforeAll(async () => {
    const { url, child } = await serveCli(['--data', issuer.data, ...SERVE_FOR_SCANNERS]);
    seeded = await seedEvening(url, issuer.data);
    child.kill('SIGTERM');
    out = path.join(path.dirname(issuer.data), 'report.html');
    const result = await runCli(
      ['report', '--data', issuer.data, '--event', seeded.eid, '--out', out, '--tz', 'UTC', '--json'],
      NO_LANGUAGE,
    );
    expect(result.code, result.stderr).toBe(0);
    headline = JSON.parse(result.stdout) as Record<string, unknown>;
    stderr = result.stderr;
    html = fs.readFileSync(out, 'utf8');
  }, 180_000);

  it('--json prints the file and the headline numbers; progress goes to stderr', () => {
    const { expected } = seeded;
    expect(headline).toMatchObject({
      out,
      lang: 'en',
      eid: seeded.eid,
      issued: expected.issued,
      checked_in: expected.checked_in,
      annulled: expected.annulled,
      revoked: expected.revoked,
      entries: expected.entries,
      exits: expected.exits,
      inside: expected.inside,
      peak_minute: { minute: new Date(expected.peak.minute).toISOString(), entries: expected.peak.entries },
      offline_entries: expected.offline_entries,
      double_admissions: { offline: expected.double_admissions, merged: 0 },
      forged_attempts: expected.forged,
      revoked_attempts: expected.revoked_attempts,
      wrong_event_attempts: expected.wrong_event,
      scanners: 3,
    });
    expect(headline.offline_share).toBeCloseTo(2 / 11, 6);
    expect(stderr).toMatch(/^Reading event /);
    expect(stderr).toContain(`Wrote ${out}`);
    // Names, counts and scanner names of the event: owner only (docs/issuer.md "Files the CLI writes").
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
  });

  it('the totals in the HTML, in English by default', () => {
    const { expected } = seeded;
    expect(html).toContain('<html lang="en">');
    for (const english of ENGLISH) expect(html, english).toContain(english);
    expect(reportTile(html, 'total-issued')).toBe(expected.issued);
    expect(reportTile(html, 'total-checked-in')).toBe(expected.checked_in);
    expect(reportTile(html, 'total-annulled')).toBe(expected.annulled);
    expect(reportTile(html, 'total-revoked')).toBe(expected.revoked);
    expect(reportTile(html, 'total-exits')).toBe(expected.exits);
    expect(reportTile(html, 'total-inside')).toBe(expected.inside);
  });

  it('arrivals per 5 minutes per gate, and the peak minute', () => {
    const { expected, base } = seeded;
    const rows = reportTableRows(html, 'arrivals-table');
    // From, North in, South in, All in, All out; then the total row.
    expect(rows).toEqual([
      ...expected.north.map((north, i) => [
        clock(base + i * 5 * 60_000),
        String(north),
        String(expected.south[i]),
        String(north + expected.south[i]!),
        String(expected.exits_per_bucket[i]),
      ]),
      ['Total', '7', '4', '11', '2'],
    ]);
    expect(html).toContain(`Peak minute: ${clock(expected.peak.minute)}, 4 entries`);
    expect(html).toContain('(North 4).');
  });

  it('the share admitted offline and how late the offline scans were synced', () => {
    expect(html).toContain('18.2 % of entries were admitted offline (2 of 11)');
    const delay = headline.offline_sync_delay_seconds as { median: number; p95: number; max: number };
    // Scanned at +12 min 15 s, synced "now": between 47 and 53 minutes later.
    expect(delay.median).toBeGreaterThan(47 * 60);
    expect(delay.max).toBeLessThan(54 * 60);
    expect(delay.p95).toBe(delay.max);
    expect(html).toMatch(/data-bin="15 – 60 min"[^>]*><title>15 – 60 min: 2<\/title>/);
  });

  it('double admissions, forged, revoked and wrong-event attempts, scanner uptime', () => {
    // One of them: the singular.
    expect(html).toContain('1 possible offline double admission, 0 found when two copies of the issuer were merged.');
    const doubles = reportTableRows(html, 'double-table');
    expect(doubles).toHaveLength(1);
    expect(doubles[0]![3]).toBe('South');
    expect(doubles[0]![7]).toBe('North');
    expect(reportTableRows(html, 'attempts-table')).toEqual([
      ['Forged signature', '1', '1', 'South 1'],
      ['Revoked ticket', '1', '1', 'North 1'],
      ['Wrong event', '1', '1', 'North 1'],
    ]);
    const scanners = reportTableRows(html, 'scanner-table');
    expect(scanners.map((row) => row[1])).toEqual(['North', 'North', 'South']);
    // North entry: 7 entries + revoked + wrong event; North exit: 2 exits; South: 4 entries + the late one + the forged report.
    expect(scanners.map((row) => Number(row[4])).sort()).toEqual([2, 6, 9]);
    expect(scanners.every((row) => row[6] === 'none')).toBe(true);
  });

  it('escapes what came from outside, and names no URL', () => {
    expect(html).toContain('After-event report: Harbour &lt;Night&gt; &amp; &quot;Friends&quot;');
    expect(html).not.toContain('<Night>');
    expect(html).not.toMatch(/(https?|ftp|file):\/\/|\/\/[a-z0-9.-]+\.[a-z]{2,}\//i);
    expect(html).not.toMatch(/<(script|link|img|iframe|object)\b/i);
  });

  /** Reports the seeded evening again into its own file; the HTML and the --json headline. */
  const reportIn = async (name: string, args: string[], env: NodeJS.ProcessEnv) => {
    const file = path.join(path.dirname(issuer.data), name);
    const result = await runCli(
      ['report', '--data', issuer.data, '--event', seeded.eid, '--out', file, '--tz', 'UTC', '--json', ...args],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    return { html: fs.readFileSync(file, 'utf8'), headline: JSON.parse(result.stdout) as Record<string, unknown> };
  };

  it('--lang de: German headings and labels, no English heading left, numbers and dates as in German, every chart', async () => {
    // The environment asks for French: --lang wins.
    const german = await reportIn('report-de.html', ['--lang', 'de'], { ...NO_LANGUAGE, LANG: 'fr_FR.UTF-8' });
    const { expected, base } = seeded;
    expect(german.headline).toMatchObject({ lang: 'de', checked_in: expected.checked_in });
    expect(headings(german.html)[0]).toBe('Abschlussbericht: Harbour &lt;Night&gt; &amp; &quot;Friends&quot;');
    expectTranslated(german.html, 'de', [
      'Gesamtzahlen',
      'Ankünfte pro 5 Minuten und Eingang',
      'Offline eingelassen',
      'Bei der Übertragung entdeckte doppelte Einlässe',
      'Abgewiesene Versuche: gefälscht, gesperrt, falsche Veranstaltung',
      'Verfügbarkeit der Scanner',
    ]);
    expect(german.html).toContain('<div class="label">Eingelassen</div><div class="value">10</div>');
    expect(german.html).toContain(`Stärkste Minute: ${clock(expected.peak.minute)}, 4 Eintritte`);
    // A decimal comma, and the date as German writes it ("26. Nov. 2026, 19:05:00").
    expect(german.html).toContain('18,2 % der Eintritte wurden offline eingelassen (2 von 11)');
    expect(german.html).toMatch(/Erstellt am \d{1,2}\. [A-Z][a-zä]+\.? \d{4}, \d{2}:\d{2}:\d{2}\. Zeitangaben in UTC\./);
    expect(german.html).toContain('1 möglicher doppelter Einlass offline, 0 beim Zusammenführen zweier Kopien des Ticketservers entdeckt.');
    expect(reportTableRows(german.html, 'arrivals-table')[0]![0]).toBe(clock(base));
    expect(reportTableRows(german.html, 'arrivals-table').at(-1)).toEqual(['Summe', '7', '4', '11', '2']);
    expect(reportTableRows(german.html, 'attempts-table')).toEqual([
      ['Gefälschte Signatur', '1', '1', 'South 1'],
      ['Gesperrtes Ticket', '1', '1', 'North 1'],
      ['Falsche Veranstaltung', '1', '1', 'North 1'],
    ]);
    expect(reportTableRows(german.html, 'scanner-table').every((row) => row[6] === 'keine')).toBe(true);
    expect(german.html).toContain('<title id="chart-problems-title">Probleme an den Eingängen</title>');
    expect(german.html).toMatch(/data-bin="15 – 60 min"[^>]*><title>15 – 60 min: 2<\/title>/);
  });

  it("without --lang, the environment's language (LANG=fr_FR.UTF-8): French; --lang en wins over LC_ALL", async () => {
    const french = await reportIn('report-fr.html', [], { ...NO_LANGUAGE, LANG: 'fr_FR.UTF-8' });
    expect(french.headline).toMatchObject({ lang: 'fr' });
    expectTranslated(french.html, 'fr', [
      'Totaux',
      'Arrivées par tranche de 5 minutes et par porte',
      'Entrées hors ligne',
      'Doubles entrées découvertes à la synchronisation',
      'Tentatives refusées : billets falsifiés, annulés ou d’un autre événement',
      'Disponibilité des scanners',
    ]);
    expect(french.html).toContain('18,2 % des entrées ont été validées hors ligne (2 sur 11)');
    expect(french.html).toContain(`Minute la plus chargée : ${clock(seeded.expected.peak.minute)}, 4 entrées`);
    expect(reportTableRows(french.html, 'arrivals-table').at(-1)).toEqual(['Total', '7', '4', '11', '2']);

    const english = await reportIn('report-en.html', ['--lang', 'en'], { ...NO_LANGUAGE, LC_ALL: 'de_DE.UTF-8' });
    expect(english.html).toContain('<html lang="en">');
    expect(headings(english.html)[1]).toBe('Totals');
  });

  it('an unknown event, a bad time zone or gap are refused with the contract error', async () => {
    expect((await cliFailure(['report', '--data', issuer.data, '--event', 'NOPE', '--out', out])).code).toBe('EVENT_NOT_FOUND');
    expect((await cliFailure(['report', '--data', issuer.data, '--event', seeded.eid, '--out', out, '--tz', 'Mars/Olympus'])).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect((await cliFailure(['report', '--data', issuer.data, '--event', seeded.eid, '--out', out, '--gap-minutes', '0'])).code).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('an unknown --lang is refused with INVALID_ARGUMENT naming the four', async () => {
    for (const lang of ['pt', 'deutsch']) {
      const refused = await cliFailure(['report', '--data', issuer.data, '--event', seeded.eid, '--out', out, '--lang', lang]);
      expect(refused.code).toBe('INVALID_ARGUMENT');
      expect(refused.message).toContain('en, de, fr, es');
    }
  });
});
