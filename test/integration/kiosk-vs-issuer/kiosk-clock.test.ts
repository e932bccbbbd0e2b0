/**
 * The kiosk knows its clock (docs/kiosk.md "The kiosk's clock"): a kiosk whose clock runs 2 hours ahead
 * learns the offset from the real issuer's Date headers, warns staff, sends it with the heartbeat, and
 * judges a ticket's expiry offline by the issuer's time as last known, also after a restart offline.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/kiosk-vs-issuer/kiosk-clock.test.ts
 */
import { describe, expect, it } from 'vitest';
import type { HeartbeatRequest } from '../../../protocol/index.js';
import type { FetchLike } from '../../../main/kiosk/sync/issuer-client.js';
import { enrollWith, verdictOf } from './helpers/kiosk.js';
import { useIssuerAndKiosks } from './helpers/rig.js';

const rig = useIssuerAndKiosks();
const HOUR_MS = 3_600_000;

/** Passes every request to the real issuer, and keeps the heartbeat requests' bodies. */
function recordingHeartbeats(): { fetch: FetchLike; heartbeats: HeartbeatRequest[] } {
  const heartbeats: HeartbeatRequest[] = [];
  const fetchThrough: FetchLike = (url, init) => {
    if (url.endsWith('/scanners/heartbeat') && typeof init?.body === 'string') heartbeats.push(JSON.parse(init.body) as HeartbeatRequest);
    return fetch(url, init);
  };
  return { fetch: fetchThrough, heartbeats };
}

describe('a kiosk whose clock is 2 hours ahead', () => {
  it('learns the offset from the issuer, warns, reports it, and judges expiry offline by the issuer’s time, across a restart', async () => {
    rig.skew = 2 * HOUR_MS; // the kiosk's clock (rig.clock) runs 2 hours ahead of the issuer's
    const keys = rig.kiosks.keychain('clock');
    rig.kiosks.track(keys);
    const recorder = recordingHeartbeats();
    const core = rig.kiosks.open(keys, { db: 'clock.db', now: rig.clock, fetch: recorder.fetch });
    expect((await core.getState()).clock).toEqual({ offset_ms: null, warn: false, measured_at: null });

    await enrollWith(core, rig.issuer.setupCode().code);

    const { clock } = await core.getState();
    // Date has whole seconds, and the answers' round trips add to the uncertainty: within 2 s of 2 hours behind.
    expect(Math.abs(clock!.offset_ms! + 2 * HOUR_MS)).toBeLessThan(2000);
    expect(clock!.warn).toBe(true);
    await core.heartbeat();
    const sent = recorder.heartbeats.at(-1)!;
    expect(Number.isSafeInteger(sent.clock_offset_ms)).toBe(true);
    expect(Math.abs(sent.clock_offset_ms! + 2 * HOUR_MS)).toBeLessThan(2000);

    // Valid for one more hour by the issuer's clock: by the kiosk's own clock it expired an hour ago.
    const valid = rig.issuer.issueTicket({ expiresAt: new Date(Date.now() + HOUR_MS) });
    const validAfterRestart = rig.issuer.issueTicket({ expiresAt: new Date(Date.now() + HOUR_MS) });
    // Expired 10 minutes ago by the issuer's clock.
    const expired = rig.issuer.issueTicket({ expiresAt: new Date(Date.now() - 10 * 60_000) });
    await rig.issuer.stop();

    expect(verdictOf(await core.scan(valid.code))).toMatchObject({ kind: 'admit', offline: true });
    expect(verdictOf(await core.scan(expired.code))).toMatchObject({ kind: 'refuse', reason: 'expired', offline: true });

    // Restarted while the issuer is still away: the offset was kept in the local store.
    await core.close();
    const restarted = rig.kiosks.open(keys, { db: 'clock.db', now: rig.clock });
    const kept = (await restarted.getState()).clock!;
    expect(kept.warn).toBe(true);
    // Sub-second refinements are not each written (decide/clock.ts): what was kept is within a second of it.
    expect(Math.abs(kept.offset_ms! - clock!.offset_ms!)).toBeLessThan(1000);
    expect(verdictOf(await restarted.scan(validAfterRestart.code))).toMatchObject({ kind: 'admit', offline: true });
  });

  it('a kiosk whose clock is right does not warn', async () => {
    const keys = rig.kiosks.keychain('clock-right');
    rig.kiosks.track(keys);
    const core = rig.kiosks.open(keys, { db: 'right.db', now: rig.clock });
    await enrollWith(core, rig.issuer.setupCode().code);

    const { clock } = await core.getState();
    expect(Math.abs(clock!.offset_ms!)).toBeLessThan(2000);
    expect(clock!.warn).toBe(false);
  });
});
