/**
 * The SQLite database thread of `serve` (issuer/store/sqlite-thread.ts; docs/issuer.md "Where the database
 * is"): owns the writing connection and its group commit, and runs the named write jobs the main thread
 * sends, found by name in the one list of jobs (issuer/services/write-jobs.ts). It does not start when a job
 * defined on the main thread (the names it was handed) or on this one is missing from that list.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WRITE_JOBS } from './services/write-jobs.js';
import { openDatabase } from './store/database.js';
import { definedJobNames, jobTable, runNamedJob } from './store/named-jobs.js';
import { SqliteDatabase } from './store/sqlite-database.js';
import type { ThreadReply, ThreadRequest, ThreadResult } from './store/sqlite-thread.js';
import { encodeError, encodeValue } from './store/thread-codec.js';

const port = parentPort!;
const { file, jobs: mainThreadJobs } = workerData as { file: string; jobs: string[] };
// Before the database is opened: a missing job stops the thread here, and its error names the job.
const jobs = jobTable(WRITE_JOBS, [...mainThreadJobs, ...definedJobNames()]);
// The main thread checked (or applied) the schema before starting this thread: nothing to migrate here.
const database = new SqliteDatabase(openDatabase(file, { migrate: false }));
const reply = (message: ThreadReply): void => port.postMessage(message);

// The outcomes of one commit settle together (the group commit resolves its batch's jobs one after another, in
// one go), so their callbacks are all queued before a microtask queued by the first: one message per commit,
// sent without waiting for another turn of this thread's event loop.
let results: ThreadResult[] = [];
const answer = (result: ThreadResult): void => {
  results.push(result);
  if (results.length === 1) {
    queueMicrotask(() => {
      reply({ kind: 'done', results });
      results = [];
    });
  }
};

port.on('message', (request: ThreadRequest) => {
  if (request.kind === 'close') {
    void database.close().then(() => reply({ kind: 'closed' }));
    return;
  }
  for (const { id, name, args } of request.writes) {
    database
      .write((tx) => runNamedJob(jobs, tx, name, args))
      .then(
        (value) => answer({ id, ok: true, value: encodeValue(value) }),
        (error: unknown) => answer({ id, ok: false, error: encodeError(error) }),
      );
  }
});
reply({ kind: 'ready' });
