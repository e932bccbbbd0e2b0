/**
 * Write jobs with a name, so that they can run on the SQLite database thread
 * (sqlite-thread.ts; docs/issuer.md "Where the database is"). A job is a
 * closure, and a closure cannot cross to another thread: the jobs `serve` runs
 * are registered here by name when their module loads, and the thread, which
 * loads the same modules, receives only the name and the arguments.
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

const registry = new Map<string, JobBody<never, unknown>>();

/** Registers `body` under `name`; returns the factory of jobs that run it with given arguments. */
export function namedJob<A, T>(name: string, body: JobBody<A, T>): (args: A) => NamedJob<T> {
  if (registry.has(name) && registry.get(name) !== body) throw new Error(`two write jobs are named "${name}"`);
  registry.set(name, body as JobBody<never, unknown>);
  return (args: A) => Object.assign((tx: Sql) => body(tx, args), { jobName: name, jobArgs: args as unknown });
}

export function isNamedJob(job: WriteJob<unknown>): job is NamedJob<unknown> {
  return typeof (job as Partial<NamedJob<unknown>>).jobName === 'string';
}

/** Runs the job registered as `name` (on the database thread, from the name and arguments it received). */
export function runNamedJob(tx: Sql, name: string, args: unknown): Promise<unknown> {
  const body = registry.get(name) as JobBody<unknown, unknown> | undefined;
  if (body === undefined) throw new Error(`no write job is named "${name}" on the database thread`);
  return body(tx, args);
}
