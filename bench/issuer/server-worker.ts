/** The worker thread of a benchmark server (server-thread.ts startServerThread): serves the role it was given. */
import { workerData } from 'node:worker_threads';
import { serveInThisWorker, type ServerRole } from './server-thread.js';

await serveInThisWorker(workerData as ServerRole);
