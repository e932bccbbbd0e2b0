/**
 * A scanner key's role (docs/issuer.md "Staff roles and badges", docs/protocol.md "Roles and rights"), all real:
 * the built CLI makes setup codes with `--role` (and `--can-annul`, its older name for supervisor), a `serve`
 * on loopback enrolls the kiosks, and the access table decides who may annul. The heartbeat tells each kiosk its
 * role and keeps the clock offset it reports.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import type { HeartbeatResponse } from '../../../protocol/door.js';
import { cliFailure, cliJson, createEvent, issueTickets, openDb } from '../../support/cli-harness.js';
import { enrollWith, postCheckIn, type HttpScanner } from '../../support/issuer-http.js';
import { useIssuerOnStore } from '../../support/issuer-on-store.js';

describe('scanner key roles', () => {
  const issuer = useIssuerOnStore('SQLite', 'Key Roles', { servePerTest: true });

  async function scanner(eid: string, extra: string[] = []): Promise<HttpScanner & { tokenId: string }> {
    const setup = await cliJson<{ setup_qr: string; token_id: string }>([
      'scanner',
      'setup',
      '--data',
      issuer.data,
      '--event',
      eid,
      ...extra,
    ]);
    const scannerId = crypto.randomUUID();
    const response = await enrollWith(issuer.url, decodeSetupCode(setup.setup_qr).token, scannerId);
    expect(response.status).toBe(200);
    return { apiKey: ((await response.json()) as { api_key: string }).api_key, scannerId, tokenId: setup.token_id };
  }

  const send = (who: HttpScanner, eid: string, tid: string, action: 'entry' | 'annul') =>
    postCheckIn(issuer.url, who, {
      tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: who.scannerId,
      idempotency_key: crypto.randomUUID(),
      action,
      ...(action === 'annul' ? { reason: 'wrong ticket' } : {}),
    });

  const beat = async (who: HttpScanner, body: Record<string, unknown> = {}): Promise<{ status: number; json: HeartbeatResponse }> => {
    const response = await fetch(`${issuer.url}/api/v1/scanners/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${who.apiKey}` },
      body: JSON.stringify({ scanner_id: who.scannerId, ...body }),
    });
    return { status: response.status, json: (await response.json()) as HeartbeatResponse };
  };

  it('--role steward|supervisor|technician (and --can-annul) go with the key; only supervisor and technician may annul', async () => {
    const event = await createEvent(issuer.data);
    const tids = await issueTickets(issuer.data, event.eid, 4);
    const kiosks = {
      default: await scanner(event.eid),
      steward: await scanner(event.eid, ['--role', 'steward']),
      supervisor: await scanner(event.eid, ['--role', 'supervisor']),
      technician: await scanner(event.eid, ['--role', 'technician']),
      alias: await scanner(event.eid, ['--can-annul']),
    };
    const db = openDb(issuer.data);
    const roleOf = (tokenId: string) =>
      db
        .prepare('SELECT t.role AS token, k.role AS key FROM enrollment_tokens t JOIN api_keys k USING (token_id) WHERE token_id = ?')
        .get(tokenId);
    expect(roleOf(kiosks.default.tokenId)).toEqual({ token: 'steward', key: 'steward' });
    expect(roleOf(kiosks.technician.tokenId)).toEqual({ token: 'technician', key: 'technician' });
    expect(roleOf(kiosks.alias.tokenId)).toEqual({ token: 'supervisor', key: 'supervisor' });
    db.close();

    const expected = { default: 'steward', steward: 'steward', supervisor: 'supervisor', technician: 'technician', alias: 'supervisor' };
    for (const [name, kiosk] of Object.entries(kiosks)) {
      const role = expected[name as keyof typeof expected];
      expect((await beat(kiosk)).json).toMatchObject({ role, rights: { annul: role !== 'steward' } });
    }

    // A steward's key checks in but may not annul; a supervisor's and a technician's may.
    for (const tid of tids) expect((await send(kiosks.steward, event.eid, tid, 'entry')).status).toBe(200);
    const refused = await send(kiosks.steward, event.eid, tids[0]!, 'annul');
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text)).toMatchObject({ error: { code: 'FORBIDDEN' } });
    expect(refused.text).toContain('action_not_allowed');
    for (const [kiosk, tid] of [
      [kiosks.supervisor, tids[1]!],
      [kiosks.technician, tids[2]!],
      [kiosks.alias, tids[3]!],
    ] as const) {
      const annulled = await send(kiosk, event.eid, tid, 'annul');
      expect(annulled.status, annulled.text).toBe(200);
      expect(JSON.parse(annulled.text)).toMatchObject({ status: 'annulled' });
    }

    const listed = await cliJson<{ scanners: { scanner_id: string; role: string }[] }>([
      'scanner',
      'list',
      '--data',
      issuer.data,
      '--event',
      event.eid,
    ]);
    expect(listed.scanners.find((s) => s.scanner_id === kiosks.technician.scannerId)?.role).toBe('technician');
  });

  it('refuses an unknown role, and --can-annul with another role than supervisor', async () => {
    const event = await createEvent(issuer.data);
    const setup = ['scanner', 'setup', '--data', issuer.data, '--event', event.eid];
    expect(await cliFailure([...setup, '--role', 'owner'])).toMatchObject({ code: 'INVALID_ARGUMENT', exitCode: 1 });
    expect(await cliFailure([...setup, '--role', 'steward', '--can-annul'])).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((await cliJson<{ token_id: string }>([...setup, '--role', 'supervisor', '--can-annul'])).token_id).toMatch(/./);
  });

  it('the heartbeat keeps the clock offset the kiosk reports (null when it reports none)', async () => {
    const event = await createEvent(issuer.data);
    const kiosk = await scanner(event.eid);
    const offset = () =>
      openDb(issuer.data).prepare('SELECT clock_offset_ms FROM scanner_heartbeats WHERE scanner_id = ?').pluck().get(kiosk.scannerId);
    expect((await beat(kiosk, { clock_offset_ms: -7_200_000 })).status).toBe(200);
    expect(offset()).toBe(-7_200_000);
    expect((await beat(kiosk)).status).toBe(200);
    expect(offset()).toBe(null);
    expect((await beat(kiosk, { clock_offset_ms: 1.5 })).status).toBe(400);
    expect((await beat(kiosk, { clock_offset_ms: '60000' })).status).toBe(400);
  });
});
