/**
 * The annul answer's receipt (docs/protocol.md "Annulment receipt"), all real, on both stores: a served issuer, kiosks enrolled with
 * CLI-made setup codes, badges issued with the CLI. An accepted annulment's answer carries a `tann1.` receipt signed
 * with the issuer's published key, naming the ticket, the event, the annulling scanner and who authorised it (the
 * badge's sid and role, or the key's role); a replay sends the same bytes; other answers carry none.
 */
import crypto from 'node:crypto';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAnnulmentReceipt, decodeAnnulmentReceipt } from '../../../protocol/annulment-receipt.js';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import type { PublicKey } from '../../../protocol/types.js';
import { cliJson, createEvent, issueTickets } from '../../support/cli-harness.js';
import { enrollWith, postCheckIn, type HttpScanner } from '../../support/issuer-http.js';
import { BOTH_STORES, useIssuerOnStore, type Store } from '../../support/issuer-on-store.js';

describe.each<[Store]>(BOTH_STORES)('annulment receipts (%s)', (store) => {
  const issuer = useIssuerOnStore(store, 'Annulment Receipts', { servePerTest: true });

  async function scanner(eid: string, role: string): Promise<HttpScanner> {
    const setup = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', issuer.data, '--event', eid, '--role', role]);
    const scannerId = crypto.randomUUID();
    const response = await enrollWith(issuer.url, decodeSetupCode(setup.setup_qr).token, scannerId);
    return { apiKey: ((await response.json()) as { api_key: string }).api_key, scannerId };
  }

  const send = async (who: HttpScanner, eid: string, tid: string, fields: Record<string, unknown>, key = crypto.randomUUID()) => {
    const answer = await postCheckIn(issuer.url, who, {
      tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: who.scannerId,
      idempotency_key: key,
      ...fields,
    });
    return { status: answer.status, body: JSON.parse(answer.text) as { status?: string; annulment_receipt?: string }, text: answer.text };
  };

  it("an annulment's answer carries the issuer's signed receipt: who, what, when; a replay is the same bytes", async () => {
    const event = await createEvent(issuer.data);
    const [first, second] = await issueTickets(issuer.data, event.eid, 2);
    const steward = await scanner(event.eid, 'steward');
    const supervisor = await scanner(event.eid, 'supervisor');
    const badge = await cliJson<{ sid: string; badge_qr: string }>([
      'staff',
      'badge',
      'issue',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--name',
      'Sam Super',
      '--role',
      'supervisor',
    ]);
    const discovery = (await (await fetch(`${issuer.url}/.well-known/ticket-issuer.json`)).json()) as { issuer: string; keys: PublicKey[] };

    const entry = await send(steward, event.eid, first!, { action: 'entry' });
    expect(entry.body.status).toBe('valid');
    expect(entry.body.annulment_receipt).toBeUndefined();

    // A steward's kiosk annuls with a supervisor's badge: the receipt names the badge's sid and role.
    const before = Date.now();
    const key = crypto.randomUUID();
    const request = { action: 'annul', reason: 'wrong person', staff_badge: badge.badge_qr, scanned_at: new Date().toISOString() };
    const annulled = await send(steward, event.eid, first!, request, key);
    expect(annulled.status, annulled.text).toBe(200);
    expect(annulled.body.status).toBe('annulled');
    const receipt = annulled.body.annulment_receipt!;
    expect(receipt).toMatch(/^tann1\./);
    expect(receipt).not.toContain(badge.badge_qr.split('.')[1]!); // the badge's code is not in it
    const checked = checkAnnulmentReceipt(receipt, {
      issuer: discovery.issuer,
      keys: discovery.keys,
      nowMs: Date.now(),
      eid: event.eid,
      tid: first!,
    });
    expect(checked).toMatchObject({
      ok: true,
      receipt: {
        iss: discovery.issuer,
        eid: event.eid,
        tid: first,
        scanner_id: steward.scannerId,
        staff_id: badge.sid,
        role: 'supervisor',
      },
    });
    const at = Date.parse(decodeAnnulmentReceipt(receipt).payload.annulled_at);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now());

    // The same request again (idempotency key): the stored answer, byte for byte, receipt included.
    const replay = await send(steward, event.eid, first!, request, key);
    expect(replay.text).toBe(annulled.text);
    // Checked for another ticket or event, the same receipt is refused.
    expect(
      checkAnnulmentReceipt(receipt, { issuer: discovery.issuer, keys: discovery.keys, nowMs: Date.now(), eid: event.eid, tid: second! }),
    ).toMatchObject({ ok: false, check: 'ticket' });
    expect(
      checkAnnulmentReceipt(receipt, { issuer: discovery.issuer, keys: discovery.keys, nowMs: Date.now(), eid: 'evt_other', tid: first! }),
    ).toMatchObject({ ok: false, check: 'event' });

    // A supervisor's key annuls on its own authority: the key's role, with the staff id its kiosk sent.
    expect((await send(supervisor, event.eid, second!, { action: 'entry' })).body.status).toBe('valid');
    const byKey = await send(supervisor, event.eid, second!, { action: 'annul', reason: 'test', staff_id: 'pin-person-4' });
    expect(decodeAnnulmentReceipt(byKey.body.annulment_receipt!).payload).toMatchObject({
      scanner_id: supervisor.scannerId,
      staff_id: 'pin-person-4',
      role: 'supervisor',
    });
    // Nothing to annul: no receipt.
    const nothing = await send(supervisor, event.eid, (await issueTickets(issuer.data, event.eid, 1))[0]!, {
      action: 'annul',
      reason: 'test',
    });
    expect(nothing.body.status).toBe('not_checked_in');
    expect(nothing.body.annulment_receipt).toBeUndefined();
  });

  it('a data dir without the private signing key (as a serving node) annuls, and answers without a receipt', async () => {
    const event = await createEvent(issuer.data);
    const [tid] = await issueTickets(issuer.data, event.eid, 1);
    const supervisor = await scanner(event.eid, 'supervisor');
    expect((await send(supervisor, event.eid, tid!, { action: 'entry' })).body.status).toBe('valid');
    const keys = join(issuer.data, 'keys');
    renameSync(keys, `${keys}.away`);
    try {
      const annulled = await send(supervisor, event.eid, tid!, { action: 'annul', reason: 'test' });
      expect(annulled.status, annulled.text).toBe(200);
      expect(annulled.body.status).toBe('annulled');
      expect(annulled.body.annulment_receipt).toBeUndefined();
    } finally {
      renameSync(`${keys}.away`, keys);
    }
  });
});
