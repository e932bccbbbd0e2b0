/**
 * `report --event EID --out report.html`: the after-event report (docs/issuer.md "After-event report"), one
 * self-contained HTML file. The figures are issuer/services/report.ts, read on one consistent snapshot of
 * the database (SQLite or PostgreSQL); the HTML is issuer/services/report-html.ts, in English, German,
 * French or Spanish (--lang, else the environment's language, else English). Progress on stderr and the
 * summary stay in English, as the rest of the CLI; `--json` prints where it went and the headline numbers.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { requireEvent, withIssuer } from '../admin/issuer-context.js';
import { writePrivateFile } from '../admin/private-files.js';
import { AdminError } from '../error-catalogue.js';
import { DEFAULT_GAP_MINUTES, gatherReport, type ReportData } from '../services/report.js';
import { isReportLanguage, languageFromEnvironment, REPORT_LANGUAGES, type ReportLanguage } from '../services/report-messages/index.js';
import { action, withCommonOptions, type CommonOptions } from './command.js';
import { isTimeZone } from '../../protocol/check-in-rules.js';

interface ReportOptions extends CommonOptions {
  event: string;
  out: string;
  tz?: string;
  lang?: string;
  gapMinutes: string;
}

/** An IANA zone name Intl knows. */
export function reportTimeZone(value: string | undefined): string {
  const zone = value ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!isTimeZone(zone)) throw new AdminError('INVALID_ARGUMENT', `--tz must be an IANA time zone such as Europe/Berlin, not "${zone}"`);
  return zone;
}

/**
 * The report's language: --lang when given (one of the four, else refused), else the environment's
 * (LC_ALL, LC_MESSAGES, LANG) when it is one of the four, else English. An environment in another
 * language is no request for this report, so it falls back rather than fails.
 */
export function reportLanguage(value: string | undefined, env: NodeJS.ProcessEnv = process.env): ReportLanguage {
  if (value === undefined) return languageFromEnvironment(env) ?? 'en';
  if (isReportLanguage(value)) return value;
  throw new AdminError('INVALID_ARGUMENT', `--lang must be one of ${REPORT_LANGUAGES.join(', ')}, not "${value}"`);
}

export function gapMinutes(value: string): number {
  const minutes = Number(value);
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > 24 * 60)
    throw new AdminError('INVALID_ARGUMENT', `--gap-minutes must be a whole number of minutes from 1 to 1440, not "${value}"`);
  return minutes;
}

/** What --json prints: the file and the headline numbers. */
export function headline(out: string, data: ReportData, language: ReportLanguage) {
  return {
    out,
    lang: language,
    eid: data.event.eid,
    issued: data.totals.issued,
    checked_in: data.totals.checked_in,
    annulled: data.totals.annulled,
    revoked: data.totals.revoked,
    entries: data.totals.entries,
    exits: data.totals.exits,
    inside: data.totals.inside,
    peak_minute: data.arrivals.peak === null ? null : { minute: data.arrivals.peak.minute, entries: data.arrivals.peak.entries },
    offline_entries: data.offline.offline_entries,
    offline_share: data.offline.share,
    offline_sync_delay_seconds:
      data.offline.delays === null
        ? null
        : { median: data.offline.delays.median_seconds, p95: data.offline.delays.p95_seconds, max: data.offline.delays.max_seconds },
    double_admissions: { offline: data.double_admissions.offline, merged: data.double_admissions.merged },
    forged_attempts: data.attempts.forged.attempts,
    revoked_attempts: data.attempts.revoked.attempts,
    wrong_event_attempts: data.attempts.wrong_event.attempts,
    scanners: data.scanners.list.length,
  };
}

export function registerReportCommand(program: Command): void {
  withCommonOptions(
    program
      .command('report')
      .description(
        'after-event report: one self-contained HTML file (totals, arrivals, offline admissions, double admissions, refused attempts, scanner uptime)',
      )
      .requiredOption('--event <eid>', 'event ID')
      .requiredOption('--out <file>', 'the HTML file to write (replaced if it exists)')
      .option('--tz <zone>', 'IANA time zone the times are shown in (default: this machine’s)')
      .option(
        '--lang <language>',
        `the report's language: ${REPORT_LANGUAGES.join(', ')} (default: LC_ALL, LC_MESSAGES or LANG when one of these, else en)`,
      )
      .option('--gap-minutes <n>', 'a scanner silent for longer than this has a gap', String(DEFAULT_GAP_MINUTES)),
  ).action(
    action<ReportOptions>(async (options, output) => {
      const timeZone = reportTimeZone(options.tz);
      const language = reportLanguage(options.lang);
      const gap = gapMinutes(options.gapMinutes);
      const out = path.resolve(options.out);
      await withIssuer(options.data, async ({ database, info }) => {
        await requireEvent(database.read, options.event);
        const started = Date.now();
        output.log(`Reading event ${options.event} from the ${database.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} database…`);
        // One consistent snapshot, while serve may still be writing.
        const data = await database.snapshot((tx) =>
          gatherReport(tx, options.event, { gapMinutes: gap, onStep: (step) => output.log(`  ${step}`) }),
        );
        if (data === null) throw new AdminError('EVENT_NOT_FOUND', `no event ${options.event} at this issuer`);
        // Loaded only here: its chart geometry (d3) is of no use to any other command.
        const { renderReportHtml } = await import('../services/report-html.js');
        const html = renderReportHtml(data, { timeZone, issuerName: info.name, language });
        const temporary = `${out}.${process.pid}.tmp`;
        // Owner only, like every file the CLI writes (docs/issuer.md "Files the CLI writes").
        writePrivateFile(temporary, html);
        await fs.promises.rename(temporary, out);
        output.log(`Wrote ${out} (${Math.ceil(Buffer.byteLength(html) / 1024)} KB) in ${Date.now() - started} ms.`);
        output.result(headline(out, data, language), () =>
          [
            `Report for ${data.event.name}: ${out}`,
            `  checked in ${data.totals.checked_in} of ${data.totals.issued}, inside at the end ${data.totals.inside}, exits ${data.totals.exits}`,
            `  admitted offline ${data.offline.offline_entries}, possible double admissions ${data.double_admissions.offline + data.double_admissions.merged}`,
          ].join('\n'),
        );
      });
    }),
  );
}
