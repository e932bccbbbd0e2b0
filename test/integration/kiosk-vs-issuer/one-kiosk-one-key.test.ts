/**
 * One kiosk, one key (docs/kiosk.md "Secret storage"): two kiosks under one OS user (one keyring service,
 * as two `ticket-kiosk web` hosts with their own data folders), enrolled with one real issuer, each keep
 * their own API key in the real keyring and both keep checking in; a kiosk enrolled before the keyring
 * entry was per kiosk (its key under the bare issuer address) keeps working without re-enrolling.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer/one-kiosk-one-key.test.ts
 */
import { describe, expect, it } from 'vitest';
import { enrollWith, eventually, verdictOf } from './helpers/kiosk.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks();

/** The issuer's heartbeat rows of a scanner (docs/protocol.md "Scanner heartbeat"). */
function heartbeatsOf(scannerId: string): number {
  return (rig.issuer.fx.db.prepare('SELECT COUNT(*) AS n FROM scanner_heartbeats WHERE scanner_id = ?').get(scannerId) as { n: number }).n;
}

describe('two kiosks under one OS user, one issuer', () => {
  it('each keeps its own key: enrolling the second does not take the first one’s, and both check tickets in', async () => {
    // One keyring service for both: the same OS user's keyring, as in production ("ticket-kiosk").
    const keys = rig.kiosks.keychain('shared-user');
    rig.kiosks.track(keys);
    const first = rig.kiosks.open(keys, { db: 'first.db' });
    const second = rig.kiosks.open(keys, { db: 'second.db' });
    await enrollWith(first, rig.issuer.setupCode().code);
    await enrollWith(second, rig.issuer.setupCode().code);
    const firstId = (await first.getState()).scanner.id;
    const secondId = (await second.getState()).scanner.id;
    expect(firstId).not.toBe(secondId);

    for (const [kiosk, scannerId] of [
      [first, firstId],
      [second, secondId],
      [first, firstId],
    ] as const) {
      const { tid, code } = rig.issuer.issueTicket();
      const verdict = verdictOf(await kiosk.scan(code));
      expect(verdict).toMatchObject({ kind: 'admit', offline: false, decided_by: 'issuer' });
      // The issuer knows which kiosk admitted it: each request carried that kiosk's own key.
      expect(rig.issuer.checkin(tid)).toMatchObject({ scanner_id: scannerId });
      expect(await kiosk.getState()).toMatchObject({ authorised: true });
    }

    await first.heartbeat();
    await second.heartbeat();
    expect(heartbeatsOf(firstId)).toBeGreaterThan(0);
    expect(heartbeatsOf(secondId)).toBeGreaterThan(0);
    expect(await first.getState()).toMatchObject({ authorised: true });
    // One API key entry per kiosk (and its LAN key beside it); none under the bare issuer address.
    const apiKeyAccounts = (await keys.secrets.accounts()).filter((account) => !account.endsWith('#lan-key'));
    expect(apiKeyAccounts.sort()).toEqual([`${rig.issuer.url}#scanner=${firstId}`, `${rig.issuer.url}#scanner=${secondId}`].sort());
  });

  it('a kiosk enrolled before the entry was per kiosk keeps checking in after the update, without re-enrolling', async () => {
    const keys = rig.kiosks.keychain('before-update');
    rig.kiosks.track(keys);
    const before = rig.kiosks.open(keys, { db: 'before.db' });
    await enrollWith(before, rig.issuer.setupCode().code);
    const scannerId = (await before.getState()).scanner.id;
    await before.close();
    // What an older kiosk left in the keyring: its key under the bare issuer base URL only.
    const own = `${rig.issuer.url}#scanner=${scannerId}`;
    const apiKey = await keys.secrets.loadApiKey(own);
    expect(apiKey).toEqual(expect.any(String));
    await keys.secrets.deleteApiKey(own);
    await keys.secrets.saveApiKey(rig.issuer.url, apiKey!);

    // First start after the update: same data folder, same keyring.
    const after = rig.kiosks.open(keys, { db: 'before.db' });
    // Taken over at start, before any scan: the kiosk's own entry now holds it.
    await eventually(async () => (await keys.secrets.loadApiKey(own)) === apiKey);
    const { tid, code } = rig.issuer.issueTicket();
    expect(verdictOf(await after.scan(code))).toMatchObject({ kind: 'admit', offline: false, decided_by: 'issuer' });
    expect(rig.issuer.checkin(tid)).toMatchObject({ scanner_id: scannerId });

    // A second kiosk of the same user enrolls with the same issuer afterwards: the first keeps its key.
    const newcomer = rig.kiosks.open(keys, { db: 'newcomer.db' });
    await enrollWith(newcomer, rig.issuer.setupCode().code);
    const next = rig.issuer.issueTicket();
    expect(verdictOf(await after.scan(next.code))).toMatchObject({ kind: 'admit', offline: false, decided_by: 'issuer' });
    expect(rig.issuer.checkin(next.tid)).toMatchObject({ scanner_id: scannerId });
  });
});
