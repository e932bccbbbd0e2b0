/**
 * Database jobs register explicitly (issuer/store/named-jobs.ts): every job the services define is in the one
 * list, issuer/services/write-jobs.ts, and a job left out of it stops the real database thread at start-up,
 * the error naming it, instead of failing at the job's first call.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WRITE_JOBS } from '../../../issuer/services/write-jobs.js';
import { openDatabase } from '../../../issuer/store/database.js';
import { definedJobNames, namedJob } from '../../../issuer/store/named-jobs.js';
import { SqliteThreadDatabase } from '../../../issuer/store/sqlite-thread.js';
import { createIssuerFixture, type IssuerFixture } from '../../support/issuer-fixture.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The compiled thread, as serve starts it (vitest's global setup ran npm run build). */
const THREAD_SCRIPT = new URL(`file://${path.join(root, 'dist', 'issuer', 'database-thread.js')}`);

let fx: IssuerFixture;
let thread: SqliteThreadDatabase | null = null;

beforeEach(() => {
  fx = createIssuerFixture();
});

afterEach(async () => {
  await thread?.close();
  thread = null;
  fx.cleanup();
});

describe('write jobs', () => {
  it('every job a services module defines is in the one list, once', async () => {
    const services = path.join(root, 'issuer', 'services');
    for (const file of readdirSync(services, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'))) {
      await import(pathToFileURL(path.join(services, file)).href);
    }
    const listed = WRITE_JOBS.map((job) => job.jobName);
    expect(new Set(listed).size).toBe(listed.length);
    expect(definedJobNames().sort()).toEqual([...listed].sort());
  });

  it('the database thread refuses to start without a job defined here, and names it', async () => {
    namedJob('test-unlisted-job', () => Promise.resolve(null));
    const readConnection = openDatabase(fx.dataDir.database, { migrate: false });
    try {
      await expect(SqliteThreadDatabase.start(fx.dataDir.database, THREAD_SCRIPT, readConnection)).rejects.toThrow(
        /no write job named "test-unlisted-job"/,
      );
    } finally {
      readConnection.close();
    }
  });
});
