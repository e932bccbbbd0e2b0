/**
 * Write jobs with a name, so that they can run on the SQLite database thread
 * (sqlite-thread.ts; docs/issuer.md "Where the database is"). A job is a
 * closure, and a closure cannot cross to another thread: the thread receives
 * only the job's name and arguments, and finds the job by name in one
 * explicit list, issuer/services/write-jobs.ts WRITE_JOBS.
 *
 * Every job defined (namedJob) in either thread must be in that list: the
 * main thread hands the thread the names of the jobs it defined, and the
 * thread refuses to start, naming each one it lacks (jobTable). So a job left
 * out of the list stops `serve` at start-up, not at the job's first call.
 *
 * A named job is still a plain WriteJob: SQLite on the main thread and
 * PostgreSQL just call it. Its arguments and result must survive the
 * structured clone (plain data, Dates, and the errors thread-codec.ts carries).
 */
import type { Sql, WriteJob } from './sql.js';

export type JobBody<A, T> = (tx: Sql, args: A) => Promise<T>;

export interface NamedJob<T> extends WriteJob<T> {
  readonly jobName: string;
  readonly jobArgs: unknown;
}

/** A named job's definition: called with arguments, it makes the job that runs `body` with them. */
export interface JobDefinition<A, T> {
  (args: A): NamedJob<T>;
  readonly jobName: string;
  readonly body: JobBody<A, T>;
}

/** Every job defined in this thread, by name (each module that defines one has loaded). */
const defined = new Map<string, JobBody<never, unknown>>();

/** Defines the job `name` that runs `body`; returns the factory of jobs that run it with given arguments. */
export function namedJob<A, T>(name: string, body: JobBody<A, T>): JobDefinition<A, T> {
  if (defined.has(name) && defined.get(name) !== body) throw new Error(`two write jobs are named "${name}"`);
  defined.set(name, body as JobBody<never, unknown>);
  const make = (args: A): NamedJob<T> => Object.assign((tx: Sql) => body(tx, args), { jobName: name, jobArgs: args as unknown });
  return Object.assign(make, { jobName: name, body });
}

/** The names of the jobs defined in this thread so far. */
export function definedJobNames(): string[] {
  return [...defined.keys()];
}

export function isNamedJob(job: WriteJob<unknown>): job is NamedJob<unknown> {
  return typeof (job as Partial<NamedJob<unknown>>).jobName === 'string';
}

/** The jobs the database thread runs, by name. */
export type JobTable = ReadonlyMap<string, JobBody<unknown, unknown>>;

/**
 * The database thread's jobs: `jobs` (the one list), which must hold every name in `required` (the jobs defined
 * on either thread); otherwise an error that names each missing one, and the thread does not start.
 */
export function jobTable(jobs: readonly JobDefinition<never, unknown>[], required: readonly string[]): JobTable {
  const table = new Map<string, JobBody<unknown, unknown>>();
  for (const job of jobs) {
    if (table.has(job.jobName)) throw new Error(`the write job "${job.jobName}" is listed twice`);
    table.set(job.jobName, job.body as JobBody<unknown, unknown>);
  }
  const missing = [...new Set(required)].filter((name) => !table.has(name));
  if (missing.length > 0) {
    const names = missing.map((name) => `"${name}"`).join(', ');
    throw new Error(`the database thread has no write job named ${names}: every job must be listed in issuer/services/write-jobs.ts`);
  }
  return table;
}

/** Runs the job `name` of `table` (on the database thread, from the name and arguments it received). */
export function runNamedJob(table: JobTable, tx: Sql, name: string, args: unknown): Promise<unknown> {
  const body = table.get(name);
  if (body === undefined) throw new Error(`no write job is named "${name}" on the database thread`);
  return body(tx, args);
}
