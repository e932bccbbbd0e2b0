/**
 * The issuer benchmark's printed figures (docs/benchmarks.md "Issuer (`npm run bench:issuer`)"): the first table
 * ((a), the headline run of (b) against its goals, (c)), one line per number of issuer processes with its
 * correctness checks, each run's answers, and with `--checks both` what the attention note and ID check add.
 */
import { fmt } from '../bench-kit.js';
import type { LoadResult } from '../http-load.js';
import type { RaceResult } from './check-in-load.js';
import type { LatencySummary } from './server-thread.js';
import type { Settings, Store } from './settings.js';

/**
 * The check-in's share of the bare route's throughput (docs/benchmarks.md): one process on SQLite at least half;
 * PostgreSQL, judged on the headline run (N = 2 there), at least a third.
 */
const RATIO_GOAL: Record<Store, { value: number; label: string }> = {
  sqlite: { value: 1 / 2, label: '0.5' },
  postgres: { value: 1 / 3, label: '0.33' },
};

const tallyMap = (outcomes: Map<string, number>): string => [...outcomes].map(([label, count]) => `${fmt(count)}× ${label}`).join(', ');
const tally = (result: LoadResult): string => tallyMap(result.outcomes);

/** One (b) run: N issuer processes, with or without the checks, and what it measured. */
export interface ProcessRun {
  processes: number;
  /** The type's attention note and ID check were set during this run (--checks). */
  checks: boolean;
  kind: string;
  checkIn: LoadResult;
  checkInServerSide: LatencySummary | undefined;
  pacedRate: number;
  paced: LoadResult;
  pacedServerSide: LatencySummary | undefined;
  /** The same rate offered in bursts (http-load.ts `bursts`, autocannon's overallRate). */
  bursty: LoadResult;
  burstyServerSide: LatencySummary | undefined;
  race: RaceResult;
  /** Check-ins stored during this run, and `valid` answers sent during it (warm-up, both loads, race). */
  stored: number;
  valid: number;
  ranOutOfTickets: boolean;
}

/** The headline rows: the first N, but with PostgreSQL the N = 2 run when there is one (the goal names two processes). */
export function headlineRun(runs: readonly ProcessRun[], store: Store): ProcessRun {
  return (store === 'postgres' ? runs.find((run) => run.processes === 2) : undefined) ?? runs[0]!;
}

/** What the report prints: (a) at saturation and again at the headline run's half rate, (c), and every run of (b). */
export interface Figures {
  settings: Settings;
  bare: LoadResult;
  bareServerSide: LatencySummary;
  barePaced: LoadResult;
  barePacedServerSide: LatencySummary;
  bareBursty: LoadResult;
  bareBurstyServerSide: LatencySummary;
  issueSeconds: number;
  runs: readonly ProcessRun[];
}

/** Prints the tables on stdout; false when a run's correctness check failed. */
export function printFigures(figures: Figures): boolean {
  const { settings, bare, runs } = figures;
  const first = headlineRun(runs, settings.store);
  const storeLabel = settings.store === 'postgres' ? ', PostgreSQL' : '';
  const ratio = first.checkIn.perSecond / bare.perSecond;
  const issuanceRate = settings.tickets / figures.issueSeconds;
  // Latency as the load generator saw it, then as the server thread itself saw it.
  const latency = (client: LoadResult, server: LatencySummary | undefined): string =>
    `p50 ${fmt(client.p50Ms, 2)} ms, p99 ${fmt(client.p99Ms, 2)} ms (server side: ${server === undefined ? 'not taken in child processes' : `p50 ${fmt(server.p50Ms, 2)}, p99 ${fmt(server.p99Ms, 2)}`})`;
  const firstKind = first.kind === 'worker thread' ? '' : `, ${first.kind}`;
  const rows: [string, string, string, string][] = [
    ['(a) bare Fastify JSON route', `${fmt(bare.perSecond)} req/s`, latency(bare, figures.bareServerSide), 'baseline'],
    [
      `(b) check-in, ${settings.concurrency} scanners, durable, saturated${firstKind}${storeLabel}`,
      `${fmt(first.checkIn.perSecond)} req/s`,
      latency(first.checkIn, first.checkInServerSide),
      '',
    ],
    [
      '(b)/(a)',
      fmt(ratio, 2),
      '',
      `≥ ${RATIO_GOAL[settings.store].label}: ${ratio >= RATIO_GOAL[settings.store].value ? 'met' : 'NOT met'}`,
    ],
    [
      `(b) check-in at half that rate`,
      `${fmt(first.paced.perSecond)} req/s`,
      latency(first.paced, first.pacedServerSide),
      `p99 < 10 ms: ${first.paced.p99Ms < 10 ? 'met' : 'NOT met'}`,
    ],
    [
      `(a) bare route at that rate`,
      `${fmt(figures.barePaced.perSecond)} req/s`,
      latency(figures.barePaced, figures.barePacedServerSide),
      'baseline',
    ],
    [
      `(b) check-in at half rate, in bursts (each second's share sent back to back, as autocannon's overallRate)`,
      `${fmt(first.bursty.perSecond)} req/s`,
      latency(first.bursty, first.burstyServerSide),
      `p99 < 10 ms: ${first.bursty.p99Ms < 10 ? 'met' : 'NOT met'}`,
    ],
    [
      `(a) bare route at that rate, in bursts`,
      `${fmt(figures.bareBursty.perSecond)} req/s`,
      latency(figures.bareBursty, figures.bareBurstyServerSide),
      'baseline',
    ],
    [
      `(c) bulk issuance, ${fmt(settings.tickets)} tickets${storeLabel}`,
      `${fmt(issuanceRate)} tickets/s`,
      `${fmt(figures.issueSeconds, 2)} s`,
      `≥ 20,000/s: ${issuanceRate >= 20_000 ? 'met' : 'NOT met'}`,
    ],
  ];
  console.log('| measurement | rate | latency / time | goal |');
  console.log('|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  console.log('');
  console.log(`(a) answers: ${tally(bare)} in ${fmt(bare.elapsedMs / 1000, 1)} s`);

  console.log('');
  console.log(
    settings.store === 'postgres'
      ? `(b) by number of issuer processes on one PostgreSQL database (store: postgres, fsync and synchronous_commit on; (a) = ${fmt(bare.perSecond)} req/s):`
      : `(b) by number of issuer processes on one SQLite file (store: sqlite; (a) = ${fmt(bare.perSecond)} req/s):`,
  );
  console.log('');
  console.log(
    '| processes | runs as | check-ins/s saturated | p50 / p99 saturated | (b)/(a) | half rate | p50 / p99 at half rate | stored = valid | raced tickets valid once |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  let allCorrect = true;
  for (const run of runs) {
    const correct = run.stored === run.valid;
    const raceCorrect = run.race.exactlyOnce === run.race.tickets;
    allCorrect &&= correct && raceCorrect;
    console.log(
      `| ${[
        run.processes,
        run.kind,
        fmt(run.checkIn.perSecond),
        `${fmt(run.checkIn.p50Ms, 2)} / ${fmt(run.checkIn.p99Ms, 2)} ms`,
        fmt(run.checkIn.perSecond / bare.perSecond, 2),
        `${fmt(run.paced.perSecond)} req/s`,
        `${fmt(run.paced.p50Ms, 2)} / ${fmt(run.paced.p99Ms, 2)} ms`,
        `${fmt(run.stored)} = ${fmt(run.valid)}: ${correct ? 'yes' : 'NO'}`,
        `${run.race.exactlyOnce}/${run.race.tickets}${raceCorrect ? '' : ' NOT'}`,
      ].join(' | ')} |`,
    );
  }
  console.log('');
  for (const run of runs) {
    console.log(
      `N=${run.processes} (${run.kind}) answers: ${tally(run.checkIn)} in ${fmt(run.checkIn.elapsedMs / 1000, 1)} s; at half rate: ${tally(run.paced)} in ${fmt(run.paced.elapsedMs / 1000, 1)} s; in bursts: ${tally(run.bursty)} in ${fmt(run.bursty.elapsedMs / 1000, 1)} s; race (${run.race.requests} requests): ${tallyMap(run.race.outcomes)}${run.ranOutOfTickets ? '; RAN OUT OF TICKETS before the time was up (raise --tickets)' : ''}`,
    );
  }
  if (settings.checks === 'both') {
    console.log('');
    console.log("(b) what the type's attention note and ID check add to a check-in (same data dir, same machine, one after the other):");
    for (const withChecks of runs.filter((run) => run.checks)) {
      // The run just before it: without them, same N (`--processes 1,1` alternates off, on, off, on).
      const without = runs[runs.indexOf(withChecks) - 1]!;
      console.log(
        `N=${withChecks.processes}: saturated ${fmt(without.checkIn.perSecond)} → ${fmt(withChecks.checkIn.perSecond)} check-ins/s (with/without ${fmt(withChecks.checkIn.perSecond / without.checkIn.perSecond, 2)}, (b)/(a) with them ${fmt(withChecks.checkIn.perSecond / bare.perSecond, 2)}: ≥ ${RATIO_GOAL[settings.store].label} ${withChecks.checkIn.perSecond / bare.perSecond >= RATIO_GOAL[settings.store].value ? 'met' : 'NOT met'}); at half rate p50 ${fmt(without.paced.p50Ms, 2)} → ${fmt(withChecks.paced.p50Ms, 2)} ms, p99 ${fmt(without.paced.p99Ms, 2)} → ${fmt(withChecks.paced.p99Ms, 2)} ms (p99 < 10 ms with them: ${withChecks.paced.p99Ms < 10 ? 'met' : 'NOT met'})`,
      );
    }
  }
  return allCorrect;
}
