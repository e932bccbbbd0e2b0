/** The soak benchmark's worker threads start here (see worker-rpc.ts startWorker) and take the role they are given. */
import { workerData } from 'node:worker_threads';
import { issuerWorker, type IssuerRole } from './issuer-thread.js';
import { returningWorker, type ReturningRole } from './returning-thread.js';

const data = workerData as IssuerRole | ReturningRole;
if (data.role === 'issuer') issuerWorker(data);
else returningWorker(data);
