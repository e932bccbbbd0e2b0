/**
 * Check-out at a set time (docs/protocol.md "Check-out at a set time") on both stores: the built CLI sets it, a
 * `serve` on loopback takes the scans and the heartbeat, and the moment's exits are read back from the database.
 * The daily time's moments are driven with the write jobs' own `now` (the issuer's clock is the job's argument).
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { HeartbeatResponse } from '../../../protocol/door.js';
import { openIssuer } from '../../../issuer/admin/issuer-context.js';
import { applyExitAllWrite, setExitAllWrite } from '../../../issuer/services/exit-all.js';
import { admissionEventsOfEvent } from '../../../issuer/store/checkins.js';
import { eventOccupancy } from '../../../issuer/services/door.js';
import { cliFailure, cliJson, createEvent } from '../../support/cli-harness.js';
import { enroll, postCheckIn, type HttpScanner } from '../../support/issuer-http.js';
import { BOTH_STORES, useIssuerOnStore } from '../../support/issuer-on-store.js';

describe.each(BOTH_STORES)('check-out at a set time on %s', (store) => {
  const issuer = useIssuerOnStore(store, 'Exit all', { servePerTest: true });

  async function issue(eid: string, count: number): Promise<string[]> {
    const { tickets } = await cliJson<{ tickets: { tid: string }[] }>([
      'ticket',
      'issue',
      '--data',
      issuer.data,
      '--event',
      eid,
      '--count',
      String(count),
    ]);
    return tickets.map((ticket) => ticket.tid);
  }

  async function entry(scanner: HttpScanner, eid: string, tid: string): Promise<string> {
    const response = await postCheckIn(issuer.url, scanner, {
      tid,
      eid,
      scanned_at: new Date().toISOString(),
      scanner_id: scanner.scannerId,
      idempotency_key: crypto.randomUUID(),
      action: 'entry',
    });
    expect(response.status).toBe(200);
    return (JSON.parse(response.text) as { status: string }).status;
  }

  async function heartbeat(scanner: HttpScanner): Promise<HeartbeatResponse> {
    const response = await fetch(`${issuer.url}/api/v1/scanners/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${scanner.apiKey}` },
      body: JSON.stringify({ scanner_id: scanner.scannerId }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as HeartbeatResponse;
  }

  /** The setting made now, through the same write job as `event set`. */
  async function setExitAll(eid: string, at: string): Promise<{ at: string; time_zone: string }> {
    const { database } = await openIssuer(issuer.data);
    try {
      return (await database.write(setExitAllWrite({ eid, at, timeZone: null, now: new Date().toISOString() })))!;
    } finally {
      await database.close();
    }
  }

  async function autoExits(eid: string): Promise<{ tid: string; at: string }[]> {
    const { database } = await openIssuer(issuer.data);
    try {
      return (await admissionEventsOfEvent(database.read, eid))
        .filter((row) => row.action === 'exit' && row.reason === 'auto')
        .map((row) => ({ tid: row.tid, at: row.at }));
    } finally {
      await database.close();
    }
  }

  it('checks everyone inside out once when the moment passes; the heartbeat carries it; tickets admit again on re-entry', async () => {
    const event = await createEvent(issuer.data, ['--entry', 'reentry']);
    const [a, b, c] = await issue(event.eid, 3);
    const scanner = await enroll(issuer.url, issuer.data, event.eid);
    expect(await entry(scanner, event.eid, a!)).toBe('valid');
    expect(await entry(scanner, event.eid, b!)).toBe('valid');
    expect(await entry(scanner, event.eid, a!)).toBe('already_used');

    // A moment two seconds ahead, set as of now (the CLI's own start-up could outlast two seconds on a loaded machine).
    const moment = new Date(Math.ceil((Date.now() + 2_000) / 1000) * 1000);
    const set = { exit_all: await setExitAll(event.eid, moment.toISOString()) };
    const before = await heartbeat(scanner);
    expect(before).toMatchObject({ exit_all_at: set.exit_all.at, exit_all_time_zone: 'UTC' });
    expect(before.occupancy.inside).toBe(2);
    expect(await autoExits(event.eid)).toEqual([]);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, moment.getTime() - Date.now()) + 500));
    // The next check-in records the moment before it is judged: a and b are out, so a enters again.
    expect(await entry(scanner, event.eid, a!)).toBe('valid');
    const exits = await autoExits(event.eid);
    expect(exits.map((row) => row.tid).sort()).toEqual([a, b].sort());
    expect(new Set(exits.map((row) => Date.parse(row.at)))).toEqual(new Set([moment.getTime()]));
    expect(await entry(scanner, event.eid, b!)).toBe('valid');
    expect(await entry(scanner, event.eid, c!)).toBe('valid');
    // Once per moment: later reads, heartbeats and scans record nothing more.
    const after = await heartbeat(scanner);
    expect(after.occupancy.inside).toBe(3);
    const occupancy = await cliJson<{ inside: number; exits: number }>(['event', 'occupancy', '--data', issuer.data, '--event', event.eid]);
    expect(occupancy).toMatchObject({ inside: 3, exits: 2 });
    expect(await autoExits(event.eid)).toHaveLength(2);
  });

  it('records a moment with nobody scanning when the occupancy is read; a single-entry ticket stays used', async () => {
    const event = await createEvent(issuer.data);
    const [a] = await issue(event.eid, 1);
    const scanner = await enroll(issuer.url, issuer.data, event.eid);
    expect(await entry(scanner, event.eid, a!)).toBe('valid');
    const moment = new Date(Math.ceil((Date.now() + 1_500) / 1000) * 1000).toISOString();
    await setExitAll(event.eid, moment);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(moment) - Date.now()) + 500));
    const occupancy = await cliJson<{ inside: number }>(['event', 'occupancy', '--data', issuer.data, '--event', event.eid]);
    expect(occupancy.inside).toBe(0);
    expect(await autoExits(event.eid)).toHaveLength(1);
    expect(await entry(scanner, event.eid, a!)).toBe('already_used');
    expect((await heartbeat(scanner)).occupancy.inside).toBe(0);
  });

  it('applies a daily time in the event time zone once per day, even when two jobs race for the same moment', async () => {
    const event = await createEvent(issuer.data, ['--entry', 'reentry']);
    const tids = await issue(event.eid, 4);
    const scanner = await enroll(issuer.url, issuer.data, event.eid);
    for (const tid of tids) expect(await entry(scanner, event.eid, tid)).toBe('valid');

    const { database } = await openIssuer(issuer.data);
    try {
      const setAt = new Date(Date.now() - 60_000);
      const setting = await database.write(
        setExitAllWrite({ eid: event.eid, at: '04:00', timeZone: 'Europe/Berlin', now: setAt.toISOString() }),
      );
      expect(setting).toMatchObject({ at: '04:00', time_zone: 'Europe/Berlin' });
      // A day on, some 04:00 in Berlin has passed since the entries; two jobs race for it.
      const dayOn = new Date(Date.now() + 86_400_000).toISOString();
      await Promise.all([
        database.write(applyExitAllWrite({ eid: event.eid, now: dayOn })),
        database.write(applyExitAllWrite({ eid: event.eid, now: dayOn })),
      ]);
      const exits = (await admissionEventsOfEvent(database.read, event.eid)).filter((row) => row.reason === 'auto');
      expect(exits.map((row) => row.tid).sort()).toEqual([...tids].sort());
      const at = new Date(exits[0]!.at);
      expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }).format(at)).toBe('04:00');
      expect((await eventOccupancy(database.read, event.eid)).inside).toBe(0);
      await database.write(applyExitAllWrite({ eid: event.eid, now: dayOn }));
      expect((await admissionEventsOfEvent(database.read, event.eid)).filter((row) => row.reason === 'auto')).toHaveLength(4);
    } finally {
      await database.close();
    }
  });

  it('refuses bad settings with a clear error and keeps the one it had', async () => {
    const event = await createEvent(issuer.data);
    const bad = await cliFailure(['event', 'set', '--data', issuer.data, '--event', event.eid, '--exit-all-at', '25:00']);
    expect(bad.stderr).toContain('--exit-all-at');
    const noZone = await cliFailure(['event', 'set', '--data', issuer.data, '--event', event.eid, '--exit-all-at', '04:00']);
    expect(noZone.stderr).toContain('--time-zone');
    const badZone = await cliFailure([
      'event',
      'set',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--exit-all-at',
      '04:00',
      '--time-zone',
      'Mars/Olympus',
    ]);
    expect(badZone.stderr).toContain('Mars/Olympus');
    const set = await cliJson<{ exit_all: unknown }>([
      'event',
      'set',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--exit-all-at',
      '04:00',
      '--time-zone',
      'Europe/Berlin',
    ]);
    expect(set.exit_all).toMatchObject({ at: '04:00', time_zone: 'Europe/Berlin' });
    await cliFailure(['event', 'set', '--data', issuer.data, '--event', event.eid, '--exit-all-at', 'tomorrow']);
    // A moment with an offset is kept in UTC.
    const once = await cliJson<{ exit_all: unknown }>([
      'event',
      'set',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--exit-all-at',
      '2099-07-12T06:00:00+02:00',
    ]);
    expect(once.exit_all).toMatchObject({ at: '2099-07-12T04:00:00Z', time_zone: 'UTC' });
    const scanner = await enroll(issuer.url, issuer.data, event.eid);
    expect(await heartbeat(scanner)).toMatchObject({ exit_all_at: '2099-07-12T04:00:00Z', exit_all_time_zone: 'UTC' });
    const cleared = await cliJson<{ exit_all: unknown }>([
      'event',
      'set',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--exit-all-at',
      'none',
    ]);
    expect(cleared.exit_all).toBeNull();
    expect(await heartbeat(scanner)).not.toHaveProperty('exit_all_at');
  });
});
