/**
 * The kiosk against the real issuer on HTTPS with its default self-signed
 * certificate (startServer without plainHttp). The setup code's
 * `tls_cert_sha256` pins that certificate (docs/kiosk.md "TLS pinning for self-signed issuers").
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enrollWith, verdictOf } from './helpers/kiosk.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks({ tls: true });

function openKiosk(label = 'main') {
  const keys = rig.kiosks.keychain(label);
  rig.kiosks.track(keys);
  return rig.kiosks.open(keys, { db: `${label}.db` });
}

function storedPin(label = 'main'): string | null {
  const db = new Database(join(rig.kiosks.dir, `${label}.db`), { readonly: true });
  try {
    const row = db.prepare(`SELECT value FROM settings WHERE key = 'enrollment'`).get() as { value: string };
    return (JSON.parse(row.value) as { tls_cert_sha256: string | null }).tls_cert_sha256;
  } finally {
    db.close();
  }
}

/** A well-formed fingerprint that is not the issuer's. */
function otherFingerprint(fingerprint: string): string {
  const pairs = fingerprint.split(':');
  pairs[0] = pairs[0] === 'AA' ? 'BB' : 'AA';
  return pairs.join(':');
}

describe('a self-signed issuer over HTTPS', () => {
  it('with the right pin: enrolls, admits online, and keeps the pin across a restart of the kiosk', async () => {
    expect(rig.issuer.url).toMatch(/^https:/);
    const pin = rig.issuer.fingerprint!;
    const core = openKiosk();
    await enrollWith(core, rig.issuer.setupCode({ pin }).code);
    expect(storedPin()).toBe(pin);

    const first = rig.issuer.issueTicket();
    expect(verdictOf(await core.scan(first.code))).toMatchObject({ kind: 'admit', offline: false, decided_by: 'issuer' });
    expect(rig.issuer.checkin(first.tid)).toBeDefined();
    await core.close();

    const restarted = openKiosk();
    const second = rig.issuer.issueTicket();
    expect(verdictOf(await restarted.scan(second.code))).toMatchObject({ kind: 'admit', offline: false, decided_by: 'issuer' });
    expect(await restarted.lookupStatus(second.tid)).toMatchObject({ type: 'status', status: { status: 'checked_in' } });
  });

  it('with a wrong pin: refused as unreachable because the certificate does not match; the token is not spent', async () => {
    const core = openKiosk();
    const { code, tokenId } = rig.issuer.setupCode({ pin: otherFingerprint(rig.issuer.fingerprint!) });

    const result = await core.scan(code);

    expect(result).toMatchObject({ type: 'enroll_failed', code: 'issuer_unreachable' });
    expect(result.type === 'enroll_failed' && result.message).toContain('certificate does not match the pinned fingerprint');
    expect(rig.issuer.tokenUsed(tokenId)).toBe(false);
    expect((await core.getState()).enrolled).toBe(false);
  });

  it('without a pin: refused by normal CA validation', async () => {
    const core = openKiosk();
    const { code, tokenId } = rig.issuer.setupCode();

    const result = await core.scan(code);

    expect(result).toMatchObject({ type: 'enroll_failed', code: 'issuer_unreachable' });
    expect(result.type === 'enroll_failed' && result.message).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
    expect(rig.issuer.tokenUsed(tokenId)).toBe(false);
  });

  it('when the issuer later serves another certificate, the enrolled kiosk never talks to it: offline path, clear reason', async () => {
    const core = openKiosk();
    await enrollWith(core, rig.issuer.setupCode({ pin: rig.issuer.fingerprint! }).code);
    const pinned = rig.issuer.fingerprint!;
    // The issuer's certificate is replaced (a new self-signed one, same address).
    await rig.issuer.stop();
    fs.rmSync(rig.issuer.fx.dataDir.tlsDir, { recursive: true, force: true });
    await rig.issuer.start();
    expect(rig.issuer.fingerprint).not.toBe(pinned);

    const { tid, code } = rig.issuer.issueTicket();
    expect(verdictOf(await core.scan(code))).toMatchObject({ kind: 'admit', offline: true, decided_by: 'offline_policy' });
    expect(rig.issuer.checkin(tid)).toBeUndefined();
    const lookup = await core.lookupStatus(tid);
    expect(lookup.type === 'unavailable' && lookup.message).toContain('certificate does not match the pinned fingerprint');
  });
});
