/**
 * The SQLite database thread of `serve` (issuer/store/sqlite-thread.ts; docs/issuer.md "Where the database
 * is"): owns the writing connection and its group commit, and runs the named write jobs the main thread
 * sends. The modules imported for their jobs register them by name as they load (issuer/store/named-jobs.ts);
 * every job `serve` writes with is among them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import './services/admin-actions.js';
import './services/check-in.js';
import './services/door.js';
import './services/enrollment.js';
import './services/scanner-setup.js';
import { openDatabase } from './store/database.js';
import { runNamedJob } from './store/named-jobs.js';
import { SqliteDatabase } from './store/sqlite-database.js';
import type { ThreadReply, ThreadRequest, ThreadResult } from './store/sqlite-thread.js';
import { encodeError, encodeValue } from './store/thread-codec.js';

const port = parentPort!;
const { file } = workerData as { file: string };
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
      .write((tx) => runNamedJob(tx, name, args))
      .then(
        (value) => answer({ id, ok: true, value: encodeValue(value) }),
        (error: unknown) => answer({ id, ok: false, error: encodeError(error) }),
      );
  }
});
reply({ kind: 'ready' });
