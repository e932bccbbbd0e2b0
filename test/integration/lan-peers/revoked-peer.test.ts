/**
 * A kiosk whose scanner is revoked at the issuer is cut off the LAN (docs/kiosk.md "Kiosks on one LAN": "revoking its
 * scanner at the issuer cuts it off"; docs/protocol.md "Kiosk certificate", check `revoked`), end to end as a venue
 * would see it: three kiosk PROCESSES (the real runtime, lan-kiosk-child.mjs) enrolled with the REAL issuer on
 * loopback, their keys in the real OS keyring, LAN on 127.0.0.1 only (discovery off, peers configured by port).
 *
 * Gate A's kiosk goes missing. Staff revoke its scanner key with the built admin CLI (`ticket-issuer scanner
 * revoke`); gate B's kiosk syncs its revocation list (the real sync: the list's `revoked_scanners`, docs/protocol.md
 * "Revocation list"); then the uplink goes down. What A says on the LAN from then on changes nothing at B: an
 * admission (the real kiosk A's, of a ticket A admits offline) and an annulment (signed with A's own LAN key and
 * carrying A's certificate, as a stolen kiosk can still send them: a real kiosk A only tells an annulment the issuer
 * confirmed, which a revoked key never gets). B logs each as ignored, one line naming the revoked scanner (docs/kiosk.md
 * "Kiosks on one LAN", what is ignored and logged). Gate C's kiosk, which has not synced since the revocation,
 * still believes A (the cut-off comes with the sync), and B still hears C.
 *
 *   scripts/with-keyring.sh npx vitest run test/integration/lan-peers/revoked-peer.test.ts
 */
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLanCredential } from '../../../main/kiosk/sync/enrollment.js';
import { lanSigningKey, peekKioskCertificate } from '../../../main/kiosk/sync/lan-certificate.js';
import { LanPeerState } from '../../../main/kiosk/sync/lan-peers.js';
import { cliJson } from '../../support/cli-harness.js';
import { RealIssuer } from '../kiosk-vs-issuer/helpers/real-issuer.js';
import { eventually, requireKeyring, testKeychain, verdictOf } from '../kiosk-vs-issuer/helpers/kiosk.js';
import { freeUdpPort, KioskProcess } from './kiosk-process.js';

const LABELS = ['A', 'B', 'C'] as const;
type Label = (typeof LABELS)[number];

let issuer: RealIssuer;
let dir: string;
let spy: Socket;
const received: Buffer[] = [];
const kiosks = {} as Record<Label, KioskProcess>;

/** A's own LAN credential, as its keyring holds it: the secret half of its key and the issuer's certificate for it. */
async function lanCredentialOf(kiosk: KioskProcess): Promise<{ secret: string; certificate: string }> {
  const [account] = (await kiosk.keys.secrets.accounts()).filter((name) => name.endsWith('#lan-key'));
  const credential = parseLanCredential(await kiosk.keys.secrets.loadApiKey(account!));
  expect(credential, kiosk.label).not.toBeNull();
  return credential!;
}

/** The event's revoked scanners as the last sync left them in the kiosk's own kiosk.db (docs/kiosk.md "Staff badges"). */
function revokedScannersIn(kiosk: KioskProcess): unknown {
  const db = new Database(join(kiosk.dataDir, 'kiosk.db'), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare("SELECT value FROM settings WHERE key = 'lan_revoked_scanners'").get() as { value: string } | undefined;
    return row === undefined ? undefined : JSON.parse(row.value);
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  await requireKeyring(testKeychain('probe'));
  issuer = await (await RealIssuer.create()).start();
  dir = mkdtempSync(join(tmpdir(), 'lan-revoked-'));
  spy = createSocket('udp4');
  spy.on('message', (bytes) => received.push(bytes));
  await new Promise<void>((resolve) => spy.bind(0, '127.0.0.1', resolve));
  const ports = { A: await freeUdpPort(), B: await freeUdpPort(), C: await freeUdpPort() };
  for (const label of LABELS) {
    const others = LABELS.filter((other) => other !== label).map((other) => ports[other]);
    // A also tells the spy: the test sees that A did send what B ignores.
    const peers = label === 'A' ? [...others, spy.address().port] : others;
    kiosks[label] = new KioskProcess(label, join(dir, label), ports[label], peers, testKeychain(label));
  }
  for (const label of LABELS) {
    const kiosk = kiosks[label];
    await kiosk.start();
    const result = await kiosk.scan(issuer.setupCode({ gateId: label }).code);
    expect(result, JSON.stringify(result)).toMatchObject({ type: 'enrolled', gate_id: label });
    await eventually(() => kiosk.lines(/^LAN warnings on/).length > 0);
  }
}, 90_000);

afterAll(async () => {
  for (const kiosk of Object.values(kiosks)) {
    await kiosk.stop().catch(() => kiosk.kill());
    await kiosk.keys.secrets.deleteAll().catch(() => undefined);
  }
  await new Promise<void>((resolve) => spy.close(() => resolve()));
  await issuer?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a kiosk whose scanner was revoked, on the LAN (loopback only)', () => {
  let scannerA: string;
  let first: { tid: string; code: string };

  it('before the revocation, what A admits is learned by B and C', async () => {
    const credential = await lanCredentialOf(kiosks.A);
    scannerA = peekKioskCertificate(credential.certificate)!.scanner_id;
    first = issuer.issueTicket({ holderName: 'First Guest' });
    expect(verdictOf(await kiosks.A.scan(first.code))).toMatchObject({ kind: 'admit', offline: false });
    for (const label of ['B', 'C'] as const) {
      await eventually(async () => (await kiosks[label].knows(first.tid)) !== null, 5000);
      expect(await kiosks[label].knows(first.tid), label).toMatchObject({ gate: 'A', offline: false });
    }
  });

  it('A’s scanner is revoked with the admin CLI; B’s next revocation-list sync brings it', async () => {
    const data = issuer.fx.dataDir.root;
    const listed = await cliJson<{ scanners: { scanner_id: string; api_key_id: string; revoked: boolean }[] }>([
      'scanner',
      'list',
      '--data',
      data,
      '--event',
      issuer.event.eid,
    ]);
    const keyOfA = listed.scanners.find((scanner) => scanner.scanner_id === scannerA);
    expect(keyOfA, JSON.stringify(listed)).toBeDefined();
    await cliJson(['scanner', 'revoke', '--data', data, keyOfA!.api_key_id]);

    // B's list from enrollment named no scanner; its sync now (the same run as its timer's) brings A's.
    await eventually(() => revokedScannersIn(kiosks.B) !== undefined, 5000);
    expect(revokedScannersIn(kiosks.B)).toEqual({ eid: issuer.event.eid, scanner_ids: [] });
    await kiosks.B.syncRevocations();
    expect(kiosks.B.lines(/sync failed/)).toEqual([]);
    expect(revokedScannersIn(kiosks.B)).toEqual({ eid: issuer.event.eid, scanner_ids: [scannerA] });
    // C does not sync: its list is still the one from before the revocation.
    expect(revokedScannersIn(kiosks.C)).toEqual({ eid: issuer.event.eid, scanner_ids: [] });

    // The venue's uplink goes down: from now on B decides offline, with what it holds.
    await issuer.stop();
  });

  it('offline, B ignores A’s admission (and logs it): B admits the ticket A says it admitted; C, not synced, believes A', async () => {
    const second = issuer.issueTicket({ holderName: 'Second Guest' });
    received.length = 0;
    expect(verdictOf(await kiosks.A.scan(second.code))).toMatchObject({ kind: 'admit', offline: true });
    // A did tell it (the spy heard it), and C, which has not synced since the revocation, believes it.
    await eventually(() => received.some((bytes) => bytes.includes(second.tid)), 5000);
    await eventually(async () => (await kiosks.C.knows(second.tid)) !== null, 5000);

    const ignored = new RegExp(
      `^LAN admit from 127\\.0\\.0\\.1:${kiosks.A.port} \\(scanner ${scannerA}, seq \\d+\\) ignored: scanner ${scannerA} was revoked\\.$`,
    );
    await eventually(() => kiosks.B.lines(ignored).length > 0, 5000);
    expect(kiosks.B.lines(ignored)).toHaveLength(1);
    expect(await kiosks.B.knows(second.tid)).toBeNull();
    expect(kiosks.B.lines(new RegExp(`learned admission of ticket ${second.tid}`))).toEqual([]);

    // The holder is let in at B: no "Already admitted at Gate A".
    expect(verdictOf(await kiosks.B.scan(second.code))).toMatchObject({ kind: 'admit', offline: true });
  });

  it('offline, B ignores an annulment signed with A’s own key (and logs it): B keeps A’s earlier admission; C, not synced, forgets it', async () => {
    // What a stolen kiosk A can still send: a message signed with its own LAN key, with its own certificate, undoing
    // its own admission (docs/protocol.md "LAN messages between kiosks": the sender's word undoes its own admissions).
    const credential = await lanCredentialOf(kiosks.A);
    const stolen = new LanPeerState();
    stolen.setMembership({
      eid: issuer.event.eid,
      scannerId: scannerA,
      gate: 'A',
      signer: { privateKey: lanSigningKey(credential.secret)!.privateKey, certificate: credential.certificate },
      trust: { iss: issuer.url, keys: () => [], revokedScanners: () => new Set() },
    });
    // Dated 2 s ahead (well inside the 60 s window): newer than anything the real A has sent, so a kiosk that still
    // trusts A does not take it for a replay.
    const sentAt = Date.now() + 2000;
    const annul = stolen.build('annul', sentAt, {
      adm: [{ tid: first.tid, admitted_at: new Date(sentAt).toISOString(), gate: 'A', offline: false }],
    })!;
    spy.send(annul, kiosks.B.port, '127.0.0.1');

    const ignored = new RegExp(
      `^LAN annul from 127\\.0\\.0\\.1:${spy.address().port} \\(scanner ${scannerA}, seq \\d+\\) ignored: scanner ${scannerA} was revoked\\.$`,
    );
    await eventually(() => kiosks.B.lines(ignored).length > 0, 5000);
    expect(kiosks.B.lines(ignored)).toHaveLength(1);
    // No line of B's log holds A's LAN secret.
    expect(kiosks.B.logs.join('\n')).not.toContain(credential.secret);

    // The same datagram is sound: C, whose list does not name A yet, believes it and forgets A's admission.
    spy.send(annul, kiosks.C.port, '127.0.0.1');
    await eventually(async () => (await kiosks.C.knows(first.tid)) === null, 5000);

    // B still knows A's admission of the first ticket (made before the revocation) and refuses it offline.
    expect(await kiosks.B.knows(first.tid)).toMatchObject({ gate: 'A', scanner_id: scannerA });
    expect(verdictOf(await kiosks.B.scan(first.code))).toMatchObject({
      kind: 'refuse',
      reason: 'admitted_at_other_gate',
      decided_by: 'seen_by_peer',
      offline: true,
      first_used_gate: 'A',
      first_used_scanner: scannerA,
    });
  });

  it('B still hears the kiosks that were not revoked: what C admits offline is refused at B', async () => {
    const third = issuer.issueTicket({ holderName: 'Third Guest' });
    expect(verdictOf(await kiosks.C.scan(third.code))).toMatchObject({ kind: 'admit', offline: true });
    await eventually(async () => (await kiosks.B.knows(third.tid)) !== null, 5000);
    expect(verdictOf(await kiosks.B.scan(third.code))).toMatchObject({
      kind: 'refuse',
      reason: 'admitted_at_other_gate',
      first_used_gate: 'C',
    });
    // All B ignored was the revoked scanner's: nothing of C's, nothing else.
    const ignoredAtB = kiosks.B.lines(/^LAN \w+ from \S+ \(scanner .*\) ignored: /);
    expect(ignoredAtB.length).toBeGreaterThanOrEqual(2);
    expect(ignoredAtB.filter((line) => !line.endsWith(`ignored: scanner ${scannerA} was revoked.`))).toEqual([]);
  });
});
