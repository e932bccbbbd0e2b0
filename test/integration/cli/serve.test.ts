/**
 * `serve` as an operator runs it, with admin commands from other processes on
 * the same data dir taking effect on the very next request
 * (docs/protocol.md "The admin CLI").
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import { CLI, cliJson, createEvent, initIssuer, openDb, serveCli } from '../../support/cli-harness.js';

function stopped(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));
}

describe('serve', () => {
  it('serves the API; revoke, rotate and scanner revoke from other processes apply to the next request; SIGTERM stops it', async () => {
    const { data, kid } = await initIssuer('http://127.0.0.1:8080');
    const event = await createEvent(data);
    const server = await serveCli(['--data', data, '--plain-http', '--host', '127.0.0.1', '--port', '0', '--json']);

    const discovery = async () =>
      (await (await fetch(`${server.url}/.well-known/ticket-issuer.json`)).json()) as { issuer: string; keys: { kid: string }[] };
    expect((await discovery()).issuer).toBe('http://127.0.0.1:8080');
    expect((await discovery()).keys.map((k) => k.kid)).toEqual([kid]);

    // Enroll a scanner with a setup code made by the CLI.
    const setup = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', data, '--event', event.eid]);
    const { token } = decodeSetupCode(setup.setup_qr);
    const enrolled = await fetch(`${server.url}/api/v1/scanners/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, scanner_id: crypto.randomUUID(), scanner_name: 'Door 1' }),
    });
    expect(enrolled.status).toBe(200);
    const { api_key, api_key_id } = (await enrolled.json()) as { api_key: string; api_key_id: string };

    const { tickets } = await cliJson<{ tickets: { tid: string }[] }>(['ticket', 'issue', '--data', data, '--event', event.eid]);
    const tid = tickets[0]!.tid;
    const status = async () => {
      const response = await fetch(`${server.url}/api/v1/tickets/${tid}/status`, { headers: { authorization: `Bearer ${api_key}` } });
      return { http: response.status, body: (await response.json()) as { status?: string } };
    };
    expect(await status()).toMatchObject({ http: 200, body: { status: 'valid' } });

    await cliJson(['ticket', 'revoke', '--data', data, tid]);
    expect(await status()).toMatchObject({ http: 200, body: { status: 'revoked' } });

    const rotated = await cliJson<{ kid: string }>(['key', 'rotate', '--data', data]);
    expect((await discovery()).keys.map((k) => k.kid)).toEqual([rotated.kid, kid]);

    const listed = await cliJson<{ scanners: { api_key_id: string; scanner_name: string }[] }>(['scanner', 'list', '--data', data]);
    expect(listed.scanners).toEqual([expect.objectContaining({ api_key_id, scanner_name: 'Door 1' })]);
    await cliJson(['scanner', 'revoke', '--data', data, api_key_id]);
    expect((await status()).http).toBe(401);

    server.child.kill('SIGTERM');
    expect(await stopped(server.child)).toBe(0);
    expect(server.stderr()).toContain('SIGTERM: stopping');
    // The API key never reaches the logs.
    expect(server.stderr()).not.toContain(api_key);
    expect(server.stderr()).not.toContain(token);
  });

  it('serves HTTPS by default with a self-signed certificate whose printed fingerprint is the one served', async () => {
    const { data } = await initIssuer('https://127.0.0.1:8443');
    const server = await serveCli(['--data', data, '--port', '0']);
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const printed = /fingerprint: ([0-9A-F:]+)/.exec(server.stderr())?.[1];
    expect(printed).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);

    const served = await new Promise<string>((resolve, reject) => {
      const request = https.get(`${server.url}/.well-known/ticket-issuer.json`, { rejectUnauthorized: false }, (response) => {
        const certificate = (response.socket as import('node:tls').TLSSocket).getPeerCertificate();
        response.resume();
        resolve(certificate.fingerprint256);
      });
      request.on('error', reject);
    });
    expect(served).toBe(printed);
  });

  it('Ctrl+C (SIGINT) with check-ins in flight on keep-alive connections: every answered check-in is stored, the process exits 0 at once, the database closes cleanly', async () => {
    const { data } = await initIssuer('http://127.0.0.1:8080');
    const event = await createEvent(data);
    const server = await serveCli(['--data', data, '--plain-http', '--host', '127.0.0.1', '--port', '0', '--json']);
    const setup = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', data, '--event', event.eid]);
    const scanner_id = crypto.randomUUID();
    const enrolled = await fetch(`${server.url}/api/v1/scanners/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: decodeSetupCode(setup.setup_qr).token, scanner_id, scanner_name: 'Door 1' }),
    });
    const { api_key } = (await enrolled.json()) as { api_key: string };
    const { tickets } = await cliJson<{ tickets: { tid: string }[] }>([
      'ticket',
      'issue',
      '--data',
      data,
      '--event',
      event.eid,
      '--count',
      '40',
    ]);

    // 40 check-ins sent at once and Ctrl+C as soon as the first is answered: the rest are in flight or not yet sent.
    let interrupted = false;
    const interruptOnce = (): void => {
      if (!interrupted) server.child.kill('SIGINT');
      interrupted = true;
    };
    const answers = tickets.map(({ tid }) =>
      fetch(`${server.url}/api/v1/tickets/check-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${api_key}` },
        body: JSON.stringify({
          tid,
          eid: event.eid,
          scanned_at: new Date().toISOString(),
          scanner_id,
          idempotency_key: crypto.randomUUID(),
        }),
      }).then(
        async (response) => {
          interruptOnce();
          return { tid, http: response.status, status: ((await response.json()) as { status?: string }).status };
        },
        () => ({ tid, http: 0, status: 'no answer' }),
      ),
    );
    const settled = await Promise.all(answers);
    expect(await stopped(server.child)).toBe(0);
    expect(server.stderr()).toContain('SIGINT: stopping');

    const admitted = settled.filter((answer) => answer.http === 200 && answer.status === 'valid').map((answer) => answer.tid);
    expect(admitted.length).toBeGreaterThan(0);
    expect(settled.every((answer) => answer.status === 'valid' || answer.status === 'no answer')).toBe(true);
    // Closed cleanly: the last connection's close checkpointed the WAL into the database and removed it.
    expect(fs.existsSync(path.join(data, 'issuer.db-wal'))).toBe(false);
    const db = openDb(data);
    try {
      const stored = (db.prepare('SELECT tid FROM checkins').all() as { tid: string }[]).map((row) => row.tid);
      for (const tid of admitted) expect(stored).toContain(tid);
    } finally {
      db.close();
    }
  });

  it('refuses --tls-cert without --tls-key before starting', async () => {
    const { data } = await initIssuer();
    const child = spawn(process.execPath, [CLI, 'serve', '--data', data, '--tls-cert', '/tmp/x.pem', '--json']);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    expect(await stopped(child)).toBe(1);
    expect(JSON.parse(stdout)).toEqual({ error: { code: 'INVALID_ARGUMENT', message: '--tls-cert and --tls-key go together' } });
  });
});
