/**
 * Runs the built admin CLI (dist/issuer/cli.js) as a child process, the way
 * an operator or a script does. Needs a build first: test/global-setup.ts.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, afterEach, expect } from 'vitest';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'dist', 'issuer', 'cli.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npm run build, or vitest's test/global-setup.ts)`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, TICKET_ISSUER_DATA: '', ...env }, maxBuffer: 256 * 1024 * 1024, cwd: os.tmpdir() },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs with --json, expects success and exactly one JSON document on stdout. */
export async function cliJson<T = Record<string, unknown>>(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<T> {
  const result = await runCli([...args, '--json'], env);
  expect(result.stderr.includes('ticket-issuer:') ? result.stderr : '', 'no failure reported').toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** Runs with --json, expects the contract's failure: non-zero exit, one stderr line, `{"error":{code,message}}` on stdout. */
export async function cliFailure(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: string; message: string; exitCode: number; stderr: string }> {
  const result = await runCli([...args, '--json'], env);
  expect(result.code).not.toBe(0);
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  const document = JSON.parse(result.stdout) as { error: { code: string; message: string } };
  expect(Object.keys(document)).toEqual(['error']);
  expect(Object.keys(document.error).sort()).toEqual(['code', 'message']);
  expect(lines[0]).toContain(document.error.message);
  return { ...document.error, exitCode: result.code, stderr: lines[0]! };
}

const scratchDirs: string[] = [];
/** Removes every scratchDir made so far: after each vitest file (below); a test/e2e/ file calls it in its own afterAll. */
export function removeScratchDirs(): void {
  for (const dir of scratchDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
// Registered in each test file that imports this harness (vitest runs its module once per file). Not under
// @playwright/test (test/e2e/), where vitest has no suite to register them in.
if (process.env['VITEST']) afterAll(removeScratchDirs);

/** A fresh temp dir for one test file's CLI runs, removed when the file's tests end (test/support/temp-dir.ts hands back its own cleanup instead). */
export function scratchDir(prefix = 'cli-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}

/** A `serve` the harness started: its process, the URL it printed, and everything on its stderr so far. */
export interface ServingCli {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr: () => string;
}

const servingClis: ChildProcessWithoutNullStreams[] = [];
// A test that fails halfway leaves no server behind for the next one (the vitest tests serve with it).
if (process.env['VITEST'])
  afterEach(() => {
    for (const child of servingClis.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

/** The built CLI's `serve` as a child process; resolves once it printed its URL and is ready, rejects if it exits first. */
export function serveCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ServingCli> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { env: { ...process.env, TICKET_ISSUER_DATA: '', ...env } });
  servingClis.push(child);
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = / serving \S+ on (\S+) /.exec(stderr);
      if (match && stderr.includes('Press Ctrl+C to stop.')) resolve({ child, url: match[1]!, stderr: () => stderr });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}${stdout}`)));
  });
}

/** `serve` on loopback over plain HTTP, on a port of the OS's choosing. */
export const LOOPBACK_SERVE = ['--plain-http', '--host', '127.0.0.1', '--port', '0'] as const;

export const BASE_URL = 'https://tickets.example.com';

export interface Issuer {
  data: string;
  kid: string;
}

export async function initIssuer(baseUrl = BASE_URL): Promise<Issuer> {
  const data = path.join(scratchDir(), 'issuer-data');
  const { kid } = await cliJson<{ kid: string }>(['init', '--data', data, '--base-url', baseUrl, '--name', 'Test Issuer']);
  return { data, kid };
}

/** What `event create --json` prints: the CLI's own type, so the tests read the shape the command writes. */
import type { EventJson } from '../../issuer/cli/event-commands.js';

export type { EventJson };

/** An event a week from now, so its tickets are valid while the tests run. */
/** `event ticket-type set` for one type of `eid` with `flags` (e.g. `--handout wristband`, `--id-check age:18`). */
export function setTicketType(data: string, eid: string, type: string, flags: readonly string[]): Promise<unknown> {
  return cliJson(['event', 'ticket-type', 'set', '--data', data, '--event', eid, '--type', type, ...flags]);
}

export async function createEvent(data: string, extra: string[] = []): Promise<EventJson> {
  const date = new Date(Date.now() + 7 * 86_400_000);
  date.setUTCMilliseconds(0);
  return cliJson<EventJson>([
    'event',
    'create',
    '--data',
    data,
    '--name',
    'Spring Gala',
    '--date',
    date.toISOString(),
    '--venue',
    'Main Hall',
    ...extra,
  ]);
}

/** `ticket issue --count N` for an event (plus any `extra` flags): the new tickets' ids, in issue order. */
export async function issueTickets(
  data: string,
  eid: string,
  count: number,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<string[]> {
  const { tickets } = await cliJson<{ tickets: { tid: string }[] }>(
    ['ticket', 'issue', '--data', data, '--event', eid, '--count', String(count), ...extra],
    env,
  );
  return tickets.map((ticket) => ticket.tid);
}

/** Direct read access to the data dir's database, for facts the CLI does not print. */
export function openDb(data: string): Database.Database {
  return new Database(path.join(data, 'issuer.db'));
}
