/**
 * Export format 4 (docs/issuer.md "Moving an issuer to the venue and back"): an event's LAN key and its
 * check-in rules travel, so kiosks enrolled in the office and at the venue share one key (docs/kiosk.md
 * "Kiosks on one LAN"), and rules changed at the venue come back. All real: the built CLI, a `serve` for the
 * enrollment that makes the LAN key, SQLite files.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { decodeKioskCertificate } from '../../../protocol/kiosk-certificate.js';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import { cliJson, createEvent, initIssuer, LOOPBACK_SERVE, scratchDir, serveCli } from '../../support/cli-harness.js';

const RULES = {
  version: 1,
  time_zone: 'Europe/Berlin',
  rules: [{ name: 'VIP entrance', gates: ['VIP'], only_ticket_types: ['VIP'] }],
};

function rulesFile(rules: unknown): string {
  const file = path.join(scratchDir('rules-'), 'rules.json');
  fs.writeFileSync(file, JSON.stringify(rules));
  return file;
}

/** An enrollment at `data`'s issuer with the kiosk's own LAN public key; the LAN certificate the kiosk was given. */
async function enrollOn(data: string, eid: string): Promise<string> {
  const { url, child } = await serveCli(['--data', data, ...LOOPBACK_SERVE]);
  try {
    const setup = await cliJson<{ setup_qr: string }>(['scanner', 'setup', '--data', data, '--event', eid]);
    const pub = crypto.generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!;
    const response = await fetch(`${url}/api/v1/scanners/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: decodeSetupCode(setup.setup_qr).token, scanner_id: crypto.randomUUID(), lan_public_key: pub }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { lan_certificate: string }).lan_certificate;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const rows = (data: string, table: string): unknown[] => {
  const db = new Database(path.join(data, 'issuer.db'), { readonly: true });
  try {
    return db.prepare(`SELECT * FROM ${table} ORDER BY eid`).all();
  } finally {
    db.close();
  }
};

describe('export format 4: LAN keys and check-in rules travel', () => {
  it('the venue copy gives kiosks the office key; rules changed at the venue come back to the office', async () => {
    const { data: office } = await initIssuer('http://127.0.0.1:8080');
    const { eid } = await createEvent(office);
    const officeCertificate = await enrollOn(office, eid);
    await cliJson(['event', 'rules', 'set', '--data', office, '--event', eid, '--file', rulesFile(RULES)]);

    const file = path.join(scratchDir('trip-'), 'issuer.json');
    await cliJson(['export', '--data', office, '--to', file]);
    const venue = path.join(scratchDir('venue-'), 'issuer-data');
    await cliJson(['import', '--data', venue, '--from', file]);
    expect(rows(venue, 'event_lan_keys')).toEqual(rows(office, 'event_lan_keys'));
    expect(rows(venue, 'check_in_rules')).toEqual(rows(office, 'check_in_rules'));
    // A kiosk enrolled at the venue gets a certificate signed by the office's key, which the office's kiosks hold:
    // they accept each other's LAN messages (no shared LAN key any more: docs/protocol.md "Enrollment").
    const venueCertificate = await enrollOn(venue, eid);
    expect(decodeKioskCertificate(venueCertificate).payload.kid).toBe(decodeKioskCertificate(officeCertificate).payload.kid);

    // At the venue the rules change; back at the office, the later set stands.
    const changed = { ...RULES, rules: [...RULES.rules, { name: 'Doors', window: { from: '18:00', to: '02:00' } }] };
    await new Promise((resolve) => setTimeout(resolve, 10)); // a later updated_at than the office's
    await cliJson(['event', 'rules', 'set', '--data', venue, '--event', eid, '--file', rulesFile(changed)]);
    const back = path.join(scratchDir('trip-'), 'back.json');
    await cliJson(['export', '--data', venue, '--to', back]);
    const merged = await cliJson<{ counts: Record<string, { updated: number; conflicts: number }> }>([
      'import',
      '--data',
      office,
      '--from',
      back,
    ]);
    expect(merged.counts['check_in_rules']).toMatchObject({ updated: 1, conflicts: 0 });
    expect(merged.counts['event_lan_keys']).toMatchObject({ updated: 0, conflicts: 0 });
    const shown = await cliJson<{ rules: unknown }>(['event', 'rules', 'show', '--data', office, '--event', eid]);
    expect(shown.rules).toEqual(changed);
  }, 120_000);
});
