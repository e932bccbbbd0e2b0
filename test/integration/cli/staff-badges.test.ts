/**
 * `ticket-issuer staff badge issue|list|revoke` (docs/issuer.md "Staff roles and badges") through the built CLI
 * on a real data dir: the badge is a tstaff1. code signed by the issuer's active key that protocol/staff-badge.ts
 * accepts for its event only, drawn in the terminal and written as a PNG that two QR decoders read back; a revoked
 * badge stays revoked; badges travel with export and import, and a revocation made at the venue comes back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkStaffBadge, decodeStaffBadge } from '../../../protocol/staff-badge.js';
import type { PublicKey } from '../../../protocol/types.js';
import {
  BASE_URL,
  cliFailure,
  cliJson,
  createEvent,
  initIssuer,
  openDb,
  runCli,
  scratchDir,
  type EventJson,
  type Issuer,
} from '../../support/cli-harness.js';
import { decodeWithBoth, pngPixels, rasteriseTerminalQr, terminalQrLines, zxingResults } from '../../support/qr-decoders.js';

interface BadgeJson {
  sid: string;
  eid: string;
  name: string;
  role: string;
  not_before: string;
  expires_at: string;
  issued_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
  badge_qr: string;
  png?: string;
}

let issuer: Issuer;
let event: EventJson;
let keys: PublicKey[];

beforeAll(async () => {
  issuer = await initIssuer();
  event = await createEvent(issuer.data);
  const db = openDb(issuer.data);
  keys = (db.prepare('SELECT kid, public_key, valid_from, valid_until FROM signing_keys').all() as Omit<PublicKey, 'alg'>[]).map((key) => ({
    ...key,
    alg: 'Ed25519' as const,
  }));
  db.close();
});

const issue = (...extra: string[]) =>
  cliJson<BadgeJson>(['staff', 'badge', 'issue', '--data', issuer.data, '--event', event.eid, ...extra]);

const check = (code: string, eid: string, nowMs = Date.now()) =>
  checkStaffBadge(code, { issuer: BASE_URL, keys, nowMs, eid, isRevoked: () => false });

describe('staff badge issue', () => {
  it('signs a tstaff1. badge for the event with the active key; --png writes it, two decoders read it back', async () => {
    const file = path.join(scratchDir(), 'kim.png');
    const badge = await issue('--name', 'Kim', '--role', 'supervisor', '--png', file);
    expect(badge).toMatchObject({ eid: event.eid, name: 'Kim', role: 'supervisor', revoked_at: null, png: path.resolve(file) });
    expect(badge.badge_qr.startsWith('tstaff1.')).toBe(true);
    const { payload } = decodeStaffBadge(badge.badge_qr);
    expect(payload).toMatchObject({
      v: 1,
      iss: BASE_URL,
      kid: keys[0]!.kid,
      sid: badge.sid,
      name: 'Kim',
      role: 'supervisor',
      eids: [event.eid],
    });
    // By default from now until the event's end plus 12 hours.
    expect(payload.exp * 1000).toBe(Date.parse(event.ends_at) + 12 * 3600_000);
    expect(check(badge.badge_qr, event.eid)).toMatchObject({ ok: true, badge: { sid: badge.sid } });
    expect(check(badge.badge_qr, 'another-event')).toMatchObject({ ok: false, check: 'event' });
    expect(check(badge.badge_qr, event.eid, (payload.exp + 1) * 1000)).toMatchObject({ ok: false, check: 'expired' });

    const pixels = pngPixels(fs.readFileSync(file));
    expect((await zxingResults(pixels))[0]?.text).toBe(badge.badge_qr);
    expect((await decodeWithBoth(pixels))[0]).toBe(badge.badge_qr);
  });

  it('without --json draws the badge in the terminal (readable by two decoders) and prints the raw code and the staff id', async () => {
    const result = await runCli([
      'staff',
      'badge',
      'issue',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--name',
      'Lee',
      '--role',
      'steward',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const code = /^tstaff1\.[\w-]+\.[\w-]+$/m.exec(result.stdout)![0];
    expect(result.stdout).toContain(`Staff ID (to revoke it): ${decodeStaffBadge(code).payload.sid}`);
    expect(await decodeWithBoth(rasteriseTerminalQr(terminalQrLines(result.stdout)))).toEqual([code, [code]]);
  });

  it('takes --not-before and --expires; refuses a bad role, a name that breaks the label rules, and expiries that passed', async () => {
    const later = await issue(
      '--name',
      'Night crew',
      '--role',
      'technician',
      '--not-before',
      '2099-01-01T18:00:00Z',
      '--expires',
      '2099-01-02T06:00:00Z',
    );
    expect(later).toMatchObject({ not_before: '2099-01-01T18:00:00Z', expires_at: '2099-01-02T06:00:00Z' });
    expect(check(later.badge_qr, event.eid)).toMatchObject({ ok: false, check: 'not_yet_valid' });

    expect(
      await cliFailure(['staff', 'badge', 'issue', '--data', issuer.data, '--event', event.eid, '--name', 'Kim', '--role', 'owner']),
    ).toMatchObject({
      code: 'INVALID_ARGUMENT',
      exitCode: 1,
    });
    const bidi = await cliFailure([
      'staff',
      'badge',
      'issue',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--name',
      'Kim\u202Egate',
      '--role',
      'steward',
    ]);
    expect(bidi.code).toBe('INVALID_ARGUMENT');
    expect(bidi.message).toContain('--name');
    expect(
      await cliFailure([
        'staff',
        'badge',
        'issue',
        '--data',
        issuer.data,
        '--event',
        event.eid,
        '--name',
        'Kim',
        '--role',
        'steward',
        '--expires',
        '2020-01-01T00:00:00Z',
      ]),
    ).toMatchObject({ code: 'INVALID_DATE' });
    expect(
      await cliFailure(['staff', 'badge', 'issue', '--data', issuer.data, '--event', 'nope', '--name', 'Kim', '--role', 'steward']),
    ).toMatchObject({ code: 'EVENT_NOT_FOUND' });
  });
});

describe('staff badge list and revoke', () => {
  it('lists the event badges; revoke marks one with its time and reason, and a second revoke keeps them', async () => {
    const other = await createEvent(issuer.data);
    const badge = await issue('--name', 'Sam', '--role', 'steward');
    await cliJson(['staff', 'badge', 'issue', '--data', issuer.data, '--event', other.eid, '--name', 'Elsewhere', '--role', 'steward']);
    const listed = await cliJson<{ badges: BadgeJson[] }>(['staff', 'badge', 'list', '--data', issuer.data, '--event', event.eid]);
    expect(listed.badges.map((b) => b.name)).toContain('Sam');
    expect(listed.badges.map((b) => b.name)).not.toContain('Elsewhere');
    expect(Object.keys(listed.badges[0]!)).toEqual([
      'sid',
      'eid',
      'name',
      'role',
      'not_before',
      'expires_at',
      'issued_at',
      'revoked_at',
      'revoked_reason',
    ]);

    const revoked = await cliJson<BadgeJson>(['staff', 'badge', 'revoke', '--data', issuer.data, badge.sid, '--reason', 'left the crew']);
    expect(revoked).toMatchObject({ sid: badge.sid, revoked_reason: 'left the crew' });
    expect(revoked.revoked_at).not.toBeNull();
    const again = await cliJson<BadgeJson>(['staff', 'badge', 'revoke', '--data', issuer.data, badge.sid, '--reason', 'other']);
    expect(again).toMatchObject({ revoked_at: revoked.revoked_at, revoked_reason: 'left the crew' });
    const human = await runCli(['staff', 'badge', 'list', '--data', issuer.data, '--event', event.eid]);
    expect(human.stdout).toMatch(new RegExp(`${badge.sid}.*Sam.*REVOKED`));
    expect(await cliFailure(['staff', 'badge', 'revoke', '--data', issuer.data, 'no-such-badge'])).toMatchObject({
      code: 'STAFF_BADGE_NOT_FOUND',
      exitCode: 1,
    });
  });

  it('badges travel with export and import; a revocation made on the venue copy comes back to the office', async () => {
    const badge = await issue('--name', 'Travels', '--role', 'supervisor');
    const file = path.join(scratchDir(), 'out.json');
    await cliJson(['export', '--data', issuer.data, '--to', file]);
    const venue = path.join(scratchDir(), 'venue');
    await cliJson(['import', '--data', venue, '--from', file]);
    const atVenue = await cliJson<{ badges: BadgeJson[] }>(['staff', 'badge', 'list', '--data', venue, '--event', event.eid]);
    expect(atVenue.badges.find((b) => b.sid === badge.sid)).toMatchObject({ name: 'Travels', revoked_at: null });

    await cliJson(['staff', 'badge', 'revoke', '--data', venue, badge.sid, '--reason', 'lost it']);
    const back = path.join(scratchDir(), 'back.json');
    await cliJson(['export', '--data', venue, '--to', back]);
    const merged = await cliJson<{ counts: Record<string, { updated: number }> }>(['import', '--data', issuer.data, '--from', back]);
    expect(merged.counts.staff_badges?.updated).toBe(1);
    const atOffice = await cliJson<{ badges: BadgeJson[] }>(['staff', 'badge', 'list', '--data', issuer.data, '--event', event.eid]);
    expect(atOffice.badges.find((b) => b.sid === badge.sid)).toMatchObject({ revoked_reason: 'lost it' });
  });
});
