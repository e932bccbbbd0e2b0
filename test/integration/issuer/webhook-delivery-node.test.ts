/**
 * Which process sends the webhooks (docs/issuer.md "Webhooks", "Which process delivers"), on both stores, all real:
 * the built CLI's `serve` as child processes on one issuer (on SQLite one database file, on PostgreSQL a throwaway
 * cluster), real HTTP, a receiver that verifies every signature. A check-in node run with `--webhook-delivery off`
 * writes every message in the check-in's transaction and sends none; a second `serve` with delivery on sends each.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFailure, cliJson, createEvent, issueTickets, scratchDir, serveCli } from '../../support/cli-harness.js';
import { checkIn, enroll } from '../../support/issuer-http.js';
import { BOTH_STORES, SERVE_FOR_SCANNERS, useIssuerOnStore } from '../../support/issuer-on-store.js';
import { startReceiver, until, type Receiver } from '../../support/webhook-receiver.js';

let receiver: Receiver;
beforeAll(async () => (receiver = await startReceiver()));
afterAll(() => receiver?.close());

/** `webhook add` as an operator runs it: every check-in to `hookPath` of the receiver, the secret made in a file. */
async function addEndpointByCli(data: string, hookPath: string): Promise<string> {
  const secretFile = path.join(scratchDir(), 'hook.secret');
  const args = ['webhook', 'add', `${receiver.url}${hookPath}`, '--events', 'checkin.created', '--secret-file', secretFile];
  const added = await cliJson<{ endpoint_id: string }>([...args, '--data', data]);
  receiver.secrets.set(hookPath, fs.readFileSync(secretFile, 'utf8').trim());
  return added.endpoint_id;
}

type Health = { endpoint_id: string; delivered: number; pending: number; dead: number };

describe.each(BOTH_STORES)('serve --webhook-delivery on %s', (store) => {
  const issuer = useIssuerOnStore(store, 'Delivery Node Tickets');

  it('a check-in node with delivery off writes every message and sends none; a delivering node sends each once', async () => {
    const event = await createEvent(issuer.data);
    const hookPath = `/${store.toLowerCase()}-node`;
    const endpointId = await addEndpointByCli(issuer.data, hookPath);
    const health = async (): Promise<Health> =>
      (await cliJson<{ endpoints: Health[] }>(['webhook', 'list', '--data', issuer.data])).endpoints.find(
        (endpoint) => endpoint.endpoint_id === endpointId,
      )!;

    const checkInNode = await serveCli(['--data', issuer.data, ...SERVE_FOR_SCANNERS, '--webhook-delivery', 'off']);
    expect(checkInNode.stderr()).toContain('Webhook delivery is off in this process');
    const scanner = await enroll(checkInNode.url, issuer.data, event.eid);
    const tids = await issueTickets(issuer.data, event.eid, 30);
    for (const tid of tids) expect(await checkIn(checkInNode.url, scanner, tid, event.eid)).toBe('valid');
    const arrived = () => receiver.received.filter((r) => r.path === hookPath);
    // Three of a delivering process's idle polls (500 ms apart): it would have sent them by now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(arrived()).toEqual([]);
    expect(await health()).toMatchObject({ pending: tids.length, delivered: 0, dead: 0 });

    const deliveringNode = await serveCli(['--data', issuer.data, ...SERVE_FOR_SCANNERS]);
    expect(deliveringNode.stderr()).not.toContain('Webhook delivery is off');
    await until(() => arrived().length >= tids.length, `${tids.length} deliveries`);
    // A moment more: a second copy of any of them would arrive now.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(arrived().every((r) => r.verified && r.type === 'checkin.created')).toBe(true);
    expect(
      arrived()
        .map((r) => r.data.tid as string)
        .sort(),
    ).toEqual([...tids].sort());
    expect(await health()).toMatchObject({ pending: 0, delivered: tids.length, dead: 0 });
    checkInNode.child.kill('SIGTERM');
    deliveringNode.child.kill('SIGTERM');
  }, 120_000);

  it('refuses a --webhook-delivery it does not know, saying what it takes, and serves nothing', async () => {
    const refused = await cliFailure(['serve', '--data', issuer.data, ...SERVE_FOR_SCANNERS, '--webhook-delivery', 'elsewhere']);
    expect(refused.code).toBe('INVALID_ARGUMENT');
    expect(refused.message).toContain('--webhook-delivery takes on');
    expect(refused.message).toContain('or off');
  });
});
