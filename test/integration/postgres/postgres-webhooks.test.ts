/**
 * Webhooks with two `serve` processes on one PostgreSQL database (docs/issuer.md "Webhooks", "Serving nodes"), all
 * real: a throwaway cluster, the built CLI, two serve child processes, and a receiver that verifies every
 * signature with the Standard Webhooks library. Both processes deliver; claims with FOR UPDATE SKIP LOCKED keep
 * them from sending one delivery twice: each check-in arrives exactly once when the receiver never fails. The
 * CLI's webhook commands are used as an operator would: the secret goes to a 0600 file, never to the output.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFailure, cliJson, issueTickets, LOOPBACK_SERVE, runCli, scratchDir, serveCli } from '../../support/cli-harness.js';
import { checkIn, enroll } from '../../support/issuer-http.js';
import { useTwoNodeIssuerOnPostgres } from '../../support/issuer-on-store.js';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.js';

const issuer = useTwoNodeIssuerOnPostgres('Platform Tickets');
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
});

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('webhooks on PostgreSQL, two serve processes', () => {
  it('the CLI adds an endpoint with a secret in a 0600 file it never prints; test, list and disable say what happened', async () => {
    const secretFile = path.join(scratchDir(), 'hook.secret');
    const added = await runCli([
      'webhook',
      'add',
      `${receiver.url}/cli`,
      '--data',
      issuer.data,
      '--events',
      'checkin.created,ticket.revoked',
      '--secret-file',
      secretFile,
      '--json',
    ]);
    expect(added.code, added.stderr).toBe(0);
    const secret = fs.readFileSync(secretFile, 'utf8').trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(added.stdout + added.stderr).not.toContain(secret.slice(6));
    expect(added.stderr).toContain('A new signing secret was written to');
    const endpoint = JSON.parse(added.stdout) as { endpoint_id: string; events: string; pending: number };
    expect(endpoint).toMatchObject({ events: 'checkin.created ticket.revoked', pending: 0 });
    receiver.secrets.set('/cli', secret);

    const tested = await cliJson<{ ok: boolean; status: number; message_id: string }>([
      'webhook',
      'test',
      endpoint.endpoint_id,
      '--data',
      issuer.data,
    ]);
    expect(tested).toMatchObject({ ok: true, status: 200 });
    expect(receiver.received.find((r) => r.id === tested.message_id)).toMatchObject({ type: 'webhook.test', verified: true });

    // A second endpoint with the same secret file reuses it; bad input is refused with words.
    expect(
      (await cliFailure(['webhook', 'add', 'ftp://example.com/x', '--data', issuer.data, '--events', 'all', '--secret-file', secretFile]))
        .message,
    ).toContain('https://');
    expect(
      (
        await cliFailure([
          'webhook',
          'add',
          'https://example.com/x',
          '--data',
          issuer.data,
          '--events',
          'checkin.teleported',
          '--secret-file',
          secretFile,
        ])
      ).message,
    ).toContain('unknown event "checkin.teleported"');
    fs.writeFileSync(path.join(path.dirname(secretFile), 'weak.secret'), 'whsec_c2hvcnQ=');
    expect(
      (
        await cliFailure([
          'webhook',
          'add',
          'https://example.com/x',
          '--data',
          issuer.data,
          '--events',
          'all',
          '--secret-file',
          path.join(path.dirname(secretFile), 'weak.secret'),
        ])
      ).message,
    ).toContain('24 to 64 bytes');
    expect((await cliFailure(['webhook', 'test', 'whe_nothing', '--data', issuer.data])).code).toBe('WEBHOOK_NOT_FOUND');

    const disabled = await cliJson<{ disabled_at: string | null }>(['webhook', 'disable', endpoint.endpoint_id, '--data', issuer.data]);
    expect(disabled.disabled_at).not.toBeNull();
    const listed = await cliJson<{ endpoints: { endpoint_id: string; disabled_at: string | null }[] }>([
      'webhook',
      'list',
      '--data',
      issuer.data,
    ]);
    expect(listed.endpoints.find((e) => e.endpoint_id === endpoint.endpoint_id)?.disabled_at).toBe(disabled.disabled_at);
    expect(JSON.stringify(listed)).not.toContain(secret);
    const enabled = await cliJson<{ disabled_at: string | null }>(['webhook', 'enable', endpoint.endpoint_id, '--data', issuer.data]);
    expect(enabled.disabled_at).toBeNull();
    expect((await cliFailure(['webhook', 'enable', 'whe_nothing', '--data', issuer.data])).code).toBe('WEBHOOK_NOT_FOUND');
  });

  it('both processes deliver, and no check-in goes out twice', async () => {
    const secretFile = path.join(scratchDir(), 'two.secret');
    const added = await cliJson<{ endpoint_id: string }>([
      'webhook',
      'add',
      `${receiver.url}/two`,
      '--data',
      issuer.data,
      '--events',
      'checkin.created',
      '--secret-file',
      secretFile,
    ]);
    receiver.secrets.set('/two', fs.readFileSync(secretFile, 'utf8').trim());
    const servers = await Promise.all(
      issuer.nodes.map((node) => serveCli(['--data', node, ...LOOPBACK_SERVE, '--enroll-rpm', '1000', '--scanner-rpm', '1000000'])),
    );
    const scanner = await enroll(servers[0]!.url, issuer.data, issuer.event.eid);
    const tids = await issueTickets(issuer.data, issuer.event.eid, 120);
    await Promise.all(tids.map(async (tid, i) => expect(await checkIn(servers[i % 2]!.url, scanner, tid, issuer.event.eid)).toBe('valid')));
    const arrived = () => receiver.received.filter((r) => r.path === '/two');
    await until(() => arrived().length >= tids.length, `${tids.length} deliveries`);
    // A moment more: a second copy of any of them would arrive now.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(arrived().every((r) => r.verified && r.type === 'checkin.created')).toBe(true);
    expect(arrived()).toHaveLength(tids.length);
    expect(new Set(arrived().map((r) => r.data.tid))).toEqual(new Set(tids));
    const listed = await cliJson<{ endpoints: { endpoint_id: string; delivered: number; pending: number; dead: number }[] }>([
      'webhook',
      'list',
      '--data',
      issuer.data,
    ]);
    expect(listed.endpoints.find((e) => e.endpoint_id === added.endpoint_id)).toMatchObject({
      delivered: tids.length,
      pending: 0,
      dead: 0,
    });
    for (const server of servers) server.child.kill('SIGTERM');
  }, 120_000);
});
