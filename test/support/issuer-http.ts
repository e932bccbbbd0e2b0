/**
 * A scanner's calls to a running `serve`, over real HTTP: enrollment with a
 * setup code the CLI made, and check-ins. For the integration tests that run
 * the built CLI as child processes (one issuer, several serving processes).
 */
import crypto from 'node:crypto';
import { expect } from 'vitest';
import { decodeSetupCode } from '../../protocol/setup-code.js';
import { cliJson } from './cli-harness.js';

export interface HttpScanner {
  apiKey: string;
  scannerId: string;
}

/**
 * A setup code from `scanner setup` (with `flags`, e.g. `--role handout`), exchanged at `url` for an API key; `env`
 * reaches the CLI (e.g. the database URL).
 */
export async function enroll(
  url: string,
  data: string,
  eid: string,
  env: NodeJS.ProcessEnv = {},
  flags: readonly string[] = [],
): Promise<HttpScanner> {
  const setup = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', data, '--event', eid, ...flags], env);
  const scannerId = crypto.randomUUID();
  const response = await enrollWith(url, decodeSetupCode(setup.setup_qr).token, scannerId);
  expect(response.status).toBe(200);
  return { apiKey: ((await response.json()) as { api_key: string }).api_key, scannerId };
}

/** POST /api/v1/scanners/enroll with `token`, answered as it comes. */
export function enrollWith(url: string, token: string, scannerId: string): Promise<Response> {
  return fetch(`${url}/api/v1/scanners/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, scanner_id: scannerId, scanner_name: `Door ${scannerId.slice(0, 4)}` }),
  });
}

/** One check-in with a fresh idempotency key; the answer's status (valid, already_used, revoked, …). */
export async function checkIn(url: string, scanner: HttpScanner, tid: string, eid: string): Promise<string> {
  const response = await postCheckIn(url, scanner, {
    tid,
    eid,
    scanned_at: new Date().toISOString(),
    scanner_id: scanner.scannerId,
    idempotency_key: crypto.randomUUID(),
  });
  expect(response.status).toBe(200);
  return (JSON.parse(response.text) as { status: string }).status;
}

/** POST /api/v1/tickets/check-in with `body` as given; the status, the exact bytes and the headers. */
export async function postCheckIn(
  url: string,
  scanner: HttpScanner,
  body: Record<string, unknown>,
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${url}/api/v1/tickets/check-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${scanner.apiKey}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/**
 * POST /api/v1/tickets/handouts (docs/protocol.md "Handouts (project extension)") with a new handout id: the
 * answer's status ('given' or 'refused') and reason.
 */
export async function giveHandout(
  url: string,
  scanner: HttpScanner,
  body: { tid: string; eid: string; item: string },
): Promise<{ status: string; reason?: string }> {
  const response = await fetch(`${url}/api/v1/tickets/handouts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${scanner.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ handout_id: crypto.randomUUID(), given_at: new Date().toISOString(), ...body }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { status: string; reason?: string };
}
