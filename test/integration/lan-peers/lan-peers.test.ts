/**
 * Kiosks on one LAN warn each other (docs/kiosk.md "Kiosks on one LAN"):
 * three kiosk PROCESSES (the real runtime, lan-kiosk-child.mjs) enrolled with
 * the REAL issuer on loopback, their API keys and their own LAN keys in the real
 * OS keyring, each LAN key certified with the issuer's signing key.
 * Everything is sent to 127.0.0.1 only: discovery is off (no multicast, no
 * broadcast) and each kiosk's peers are its siblings' loopback ports, set
 * through the same `peers` list discovery fills (C's from its kiosk-config.json
 * `lan.peers`, as IT lists them by hand). The test itself plays a
 * fourth "kiosk" with a UDP socket of its own (the spy), to capture a real
 * datagram and to send forged and replayed ones. C's own clock is ten minutes
 * fast: the LAN goes by the issuer's time as each kiosk knows it.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/lan-peers
 */
import { createSocket, type Socket } from 'node:dgram';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LanPeerState } from '../../../main/kiosk/sync/lan-peers.js';
import { parseLanCredential } from '../../../main/kiosk/sync/enrollment.js';
import { member, OTHER_ISSUER } from '../../unit/kiosk/lan-fixtures.js';
import { refusalText } from '../../../renderer/view/verdict-view-model.js';
import { RealIssuer } from '../kiosk-vs-issuer/helpers/real-issuer.js';
import { eventually, requireKeyring, testKeychain, verdictOf } from '../kiosk-vs-issuer/helpers/kiosk.js';
import { freeUdpPort, KioskProcess } from './kiosk-process.js';

/** How long a kiosk started again may take to hear its peers and catch up (hello every 5 s, then catch-up). */
const CATCH_UP_WAIT_MS = 20_000;

const C_CLOCK_OFFSET_MS = 10 * 60_000;

let issuer: RealIssuer;
let dir: string;
let spy: Socket;
const received: Buffer[] = [];
const kiosks: Record<'A' | 'B' | 'C', KioskProcess> = {} as never;

beforeAll(async () => {
  await requireKeyring(testKeychain('probe'));
  issuer = await (await RealIssuer.create()).start();
  dir = mkdtempSync(join(tmpdir(), 'lan-peers-'));
  spy = createSocket('udp4');
  spy.on('message', (bytes) => received.push(bytes));
  await new Promise<void>((resolve) => spy.bind(0, '127.0.0.1', resolve));
  const ports = { A: await freeUdpPort(), B: await freeUdpPort(), C: await freeUdpPort() };
  const spyPort = spy.address().port;
  for (const label of ['A', 'B', 'C'] as const) {
    const others = (['A', 'B', 'C'] as const).filter((other) => other !== label).map((other) => ports[other]);
    // A also tells the spy: the test needs one of its real datagrams.
    const peers = label === 'A' ? [...others, spyPort] : others;
    if (label === 'C') {
      // docs/kiosk.md "Kiosks on one LAN": peers listed by hand in the configuration file.
      mkdirSync(join(dir, label), { recursive: true, mode: 0o700 });
      writeFileSync(join(dir, label, 'kiosk-config.json'), JSON.stringify({ lan: { peers: others.map((port) => `127.0.0.1:${port}`) } }));
    }
    // C's own clock is ten minutes fast, far beyond the LAN's 60 s replay window: it goes by the issuer's time as
    // its answers told it (docs/kiosk.md "Kiosks on one LAN"), so its peers and it still believe each other.
    const offset = label === 'C' ? C_CLOCK_OFFSET_MS : 0;
    kiosks[label] = new KioskProcess(label, join(dir, label), ports[label], label === 'C' ? [] : peers, testKeychain(label), offset);
  }
  for (const label of ['A', 'B', 'C'] as const) {
    const kiosk = kiosks[label];
    await kiosk.start();
    const setup = issuer.setupCode({ gateId: label });
    // A's and B's staff may undo a check-in (docs/kiosk.md "Annul at the door"): the right comes with its setup code.
    if (label !== 'C') issuer.fx.db.prepare("UPDATE enrollment_tokens SET role = 'supervisor' WHERE token_id = ?").run(setup.tokenId);
    const result = await kiosk.scan(setup.code);
    expect(result, JSON.stringify(result)).toMatchObject({ type: 'enrolled', gate_id: label });
    await eventually(() => kiosk.lines(/^LAN warnings on/).length > 0);
  }
  // The venue's uplink goes down: from now on only the LAN is there.
  await issuer.stop();
}, 60_000);

afterAll(async () => {
  for (const kiosk of Object.values(kiosks)) {
    await kiosk.stop().catch(() => kiosk.kill());
    await kiosk.keys.secrets.deleteAll().catch(() => undefined);
  }
  await new Promise<void>((resolve) => spy.close(() => resolve()));
  await issuer.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('kiosks on one LAN (loopback only)', () => {
  it('each kiosk keeps its own LAN key (no shared one) in the OS keyring only: not in its database, not in its log', async () => {
    const secrets = new Set<string>();
    for (const kiosk of Object.values(kiosks)) {
      const [account] = (await kiosk.keys.secrets.accounts()).filter((name) => name.endsWith('#lan-key'));
      const credential = parseLanCredential(await kiosk.keys.secrets.loadApiKey(account!));
      expect(credential, kiosk.label).not.toBeNull();
      expect(credential!.certificate).toMatch(/^tkc1\./);
      secrets.add(credential!.secret);
      for (const file of readdirSync(kiosk.dataDir)) {
        expect(readFileSync(join(kiosk.dataDir, file)).includes(Buffer.from(credential!.secret)), file).toBe(false);
      }
      expect(kiosk.logs.join('\n')).not.toContain(credential!.secret);
    }
    expect(secrets.size).toBe(3);
  });

  it('a ticket admitted offline at gate A is refused at gate B within a second', async () => {
    const ticket = issuer.issueTicket({ holderName: 'Ada L.' });
    const admitted = verdictOf(await kiosks.A.scan(ticket.code));
    expect(admitted).toMatchObject({ kind: 'admit', offline: true });
    // The issue's promise: B knows within a second of A's ADMIT. On loopback a datagram takes well under a
    // millisecond; the second is the product's bound, wide enough for a loaded CI machine (two IPC hops here).
    const since = Date.now();
    await eventually(async () => (await kiosks.B.knows(ticket.tid)) !== null, 1000);
    expect(Date.now() - since).toBeLessThan(1000);

    // B logs what it learned, naming the kiosk that told it.
    await eventually(() => kiosks.B.lines(new RegExp(`^LAN: learned admission of ticket ${ticket.tid} at gate A`)).length > 0, 5000);
    const learned = kiosks.B.lines(new RegExp(`learned admission of ticket ${ticket.tid}`))[0]!;
    const scannerA = /from scanner (\S+) \(127\.0\.0\.1:\d+\)\.$/.exec(learned)![1]!;

    const refused = verdictOf(await kiosks.B.scan(ticket.code));
    expect(refused).toMatchObject({
      first_used_scanner: scannerA,
      detail: `admitted by scanner ${scannerA} at gate A on this LAN`,
      kind: 'refuse',
      reason: 'admitted_at_other_gate',
      decided_by: 'seen_by_peer',
      offline: true,
      first_used_at: admitted.decided_at,
      first_used_gate: 'A',
      first_used_offline: true,
    });
    // The door's words (renderer/view/verdict-view-model.ts), with the clock read off the ISO time in UTC.
    const clock = admitted.decided_at.slice(11, 16);
    expect(refusalText(refused as never, { timeZone: 'UTC', locale: 'en-GB' })).toBe(`Already admitted at Gate A, ${clock} (offline)`);
  });

  it('a forged message (a certificate the issuer did not sign) is ignored and logged; the ticket it names is still admitted', async () => {
    const ticket = issuer.issueTicket();
    const forger = new LanPeerState();
    forger.setMembership(member('forger', 'Z', { eid: issuer.event.eid, iss: issuer.url, issuer: OTHER_ISSUER }));
    const forged = forger.build('admit', Date.now(), {
      adm: [{ tid: ticket.tid, admitted_at: new Date().toISOString(), gate: 'Z', offline: true }],
    })!;
    spy.send(forged, kiosks.B.port, '127.0.0.1');
    await eventually(() => kiosks.B.lines(/scanner forger.*ignored: kiosk certificate key \w+ is not published/).length > 0, 5000);
    expect(kiosks.B.lines(/scanner forger/)).toHaveLength(1); // one line
    expect(await kiosks.B.knows(ticket.tid)).toBeNull();
    expect(verdictOf(await kiosks.B.scan(ticket.code))).toMatchObject({ kind: 'admit', offline: true });
  });

  it('the same datagram again (as multicast and unicast bring it) is one message; a real replay is ignored and logged', async () => {
    // Normal operation so far: no kiosk logged a replay.
    for (const kiosk of Object.values(kiosks)) expect(kiosk.lines(/ignored: replayed/), kiosk.label).toEqual([]);
    received.length = 0;
    const ticket = issuer.issueTicket();
    expect(verdictOf(await kiosks.A.scan(ticket.code))).toMatchObject({ kind: 'admit' });
    await eventually(() => received.some((bytes) => bytes.includes(ticket.tid)), 5000);
    await eventually(async () => (await kiosks.B.knows(ticket.tid)) !== null, 5000);
    const genuine = received.find((bytes) => bytes.includes(ticket.tid))!;

    // B heard it from A already: the same bytes again right after are the second copy of one message.
    spy.send(genuine, kiosks.B.port, '127.0.0.1');
    // A marker datagram after it (a forged one, logged): once its line is there, B has read the copy before it.
    const marker = new LanPeerState();
    marker.setMembership(member('marker', 'Z', { eid: issuer.event.eid, iss: issuer.url, issuer: OTHER_ISSUER }));
    spy.send(marker.build('hello', Date.now())!, kiosks.B.port, '127.0.0.1');
    await eventually(() => kiosks.B.lines(/scanner marker.*ignored: kiosk certificate/).length > 0, 5000);
    expect(kiosks.B.lines(/ignored: replayed/)).toEqual([]);

    // A says something newer; then the old datagram again is a replay.
    const next = issuer.issueTicket();
    expect(verdictOf(await kiosks.A.scan(next.code))).toMatchObject({ kind: 'admit' });
    await eventually(async () => (await kiosks.B.knows(next.tid)) !== null, 5000);
    spy.send(genuine, kiosks.B.port, '127.0.0.1');
    await eventually(() => kiosks.B.lines(/ignored: replayed/).length > 0, 5000);
    expect(kiosks.B.lines(/ignored: replayed/)).toHaveLength(1);
    expect(kiosks.B.lines(/ignored: replayed/)[0]).toMatch(/^LAN admit from 127\.0\.0\.1:\d+ \(scanner [^)]+\) ignored: replayed/);
  });

  it('a kiosk that was away catches up when it comes back', async () => {
    await kiosks.C.stop();
    const ticket = issuer.issueTicket();
    expect(verdictOf(await kiosks.A.scan(ticket.code))).toMatchObject({ kind: 'admit', offline: true });
    await kiosks.C.start(); // same data dir, same keyring entries: it joins and asks A and B what it missed
    // A wait, not a timing: on a loaded machine a kiosk process takes seconds to start and say hello.
    await eventually(async () => (await kiosks.C.knows(ticket.tid)) !== null, CATCH_UP_WAIT_MS);
    // C's clock is ten minutes fast, yet no message from or to it was out of time.
    for (const kiosk of Object.values(kiosks)) expect(kiosk.lines(/ignored: timestamp/), kiosk.label).toEqual([]);
    expect(verdictOf(await kiosks.C.scan(ticket.code))).toMatchObject({
      kind: 'refuse',
      reason: 'admitted_at_other_gate',
      first_used_gate: 'A',
    });
  });

  it('an admission undone at A (the issuer confirmed it) is forgotten by B; C, away meanwhile, does not learn it on its return', async () => {
    await kiosks.C.stop();
    const wrong = issuer.issueTicket({ holderName: 'Wrong Person' });
    const marker = issuer.issueTicket();
    await issuer.start(); // the uplink is back for a moment: an annulment needs the issuer
    try {
      // A sends what it queued meanwhile, and so knows the issuer is there again.
      expect(await kiosks.A.drain()).toBe('empty');
      expect(verdictOf(await kiosks.A.scan(wrong.code))).toMatchObject({ kind: 'admit', offline: false });
      await eventually(async () => (await kiosks.B.knows(wrong.tid)) !== null, 5000);
      expect(await kiosks.A.annul(wrong.tid, 'let in on a friend’s ticket')).toMatchObject({ type: 'annulled' });
      await eventually(async () => (await kiosks.B.knows(wrong.tid)) === null, 5000);
    } finally {
      await issuer.stop();
    }
    expect(verdictOf(await kiosks.A.scan(marker.code))).toMatchObject({ kind: 'admit', offline: true });

    // C comes back and catches up from A and B: it learns the marker, not the undone admission.
    await kiosks.C.start();
    await eventually(async () => (await kiosks.C.knows(marker.tid)) !== null, CATCH_UP_WAIT_MS);
    expect(await kiosks.C.knows(wrong.tid)).toBeNull();
    // Offline, the ticket's rightful holder gets in at B: no "Already admitted at Gate A".
    expect(verdictOf(await kiosks.B.scan(wrong.code))).toMatchObject({ kind: 'admit', offline: true });
  });

  it("an admission made at A and annulled at B (the issuer's receipt with it) is forgotten by C, which then admits the holder offline", async () => {
    const ticket = issuer.issueTicket({ holderName: 'Rightful Holder' });
    expect(verdictOf(await kiosks.A.scan(ticket.code))).toMatchObject({ kind: 'admit', offline: true });
    await eventually(async () => (await kiosks.C.knows(ticket.tid)) !== null, 5000);
    await issuer.start(); // the uplink is back for a moment
    try {
      // A's offline admission reaches the issuer; B knows the issuer is there again.
      expect(await kiosks.A.drain()).toBe('empty');
      expect(await kiosks.B.drain()).toBe('empty');
      expect(await kiosks.B.annul(ticket.tid, 'wristband given to the wrong person')).toMatchObject({ type: 'annulled' });
      // B never admitted it: only the receipt makes C forget A's admission.
      await eventually(async () => (await kiosks.C.knows(ticket.tid)) === null, 5000);
    } finally {
      await issuer.stop();
    }
    expect(kiosks.C.lines(/not believed/)).toEqual([]);
    // Offline, the ticket's rightful holder gets in at C: no "Already admitted at Gate A".
    expect(verdictOf(await kiosks.C.scan(ticket.code))).toMatchObject({ kind: 'admit', offline: true });
  });

  it('C, away while B annulled what A admitted, catches up with the receipt (kept in B’s store) and admits the holder', async () => {
    await kiosks.C.stop();
    const ticket = issuer.issueTicket({ holderName: 'Away Holder' });
    const marker = issuer.issueTicket();
    expect(verdictOf(await kiosks.A.scan(ticket.code))).toMatchObject({ kind: 'admit', offline: true });
    await issuer.start();
    try {
      expect(await kiosks.A.drain()).toBe('empty');
      expect(await kiosks.B.drain()).toBe('empty');
      expect(await kiosks.B.annul(ticket.tid, 'admitted on a copied ticket')).toMatchObject({ type: 'annulled' });
    } finally {
      await issuer.stop();
    }
    expect(verdictOf(await kiosks.A.scan(marker.code))).toMatchObject({ kind: 'admit', offline: true });
    // C comes back: A's catch-up answer still tells its admission (A did not annul it), B's tells the annulment with
    // its receipt; in whichever order they come, C ends up not knowing the undone admission.
    await kiosks.C.start();
    await eventually(async () => (await kiosks.C.knows(marker.tid)) !== null, CATCH_UP_WAIT_MS);
    await eventually(async () => (await kiosks.C.knows(ticket.tid)) === null, 5000);
    expect(kiosks.C.lines(/not believed/)).toEqual([]);
    expect(verdictOf(await kiosks.C.scan(ticket.code))).toMatchObject({ kind: 'admit', offline: true });
  });
});
