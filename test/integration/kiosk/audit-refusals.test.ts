/**
 * Every refusal is in the kiosk's audit log (docs/kiosk.md "The kiosk's audit log"), online or offline, with
 * its reason, and the peer kiosk for a `seen_by_peer` refusal: a real kiosk.db, a real HTTP issuer on
 * loopback that goes away, and a LAN door that knows one peer admission.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Verdict } from '../../../protocol/index.js';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import type { ScanResult } from '../../../main/kiosk/kiosk-api.js';
import type { PeerAdmission, PeerNetwork } from '../../../main/kiosk/sync/lan-peers.js';
import { handleKioskCall } from '../../../main/host/kiosk-calls.js';
import { LoopbackIssuer, makeSigningKey } from '../../support/loopback-issuer.js';
import { auditRecords, type AuditRecord } from '../../support/kiosk-audit.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';

let issuer: LoopbackIssuer;
let apiKeys: MemoryApiKeys;
let dir: { dir: string; cleanup: () => void };
const cores: KioskCore[] = [];
/** The kiosk's clock: each scan moves it on 10 s, so the same code scanned again is a new scan, not a double read. */
let clockOffsetMs = 0;

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  apiKeys = new MemoryApiKeys();
  dir = tempDir();
});

afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
  await issuer.close().catch(() => undefined);
  dir.cleanup();
});

/** The LAN as the core consults it: the admissions peers announced (no sockets; the LAN's own tests cover those). */
function peerNetwork(admissions: PeerAdmission[]): PeerNetwork {
  return {
    join: () => undefined,
    leave: () => undefined,
    admissionOf: (tid) => admissions.find((admission) => admission.tid === tid),
    publish: () => undefined,
    publishAnnulment: () => undefined,
  };
}

function openCore(lan?: PeerNetwork): KioskCore {
  const core = new KioskCore({
    dbPath: join(dir.dir, 'kiosk.db'),
    apiKeys,
    autoDrain: false,
    onlineBudgetMs: 800,
    now: () => Date.now() + clockOffsetMs,
    ...(lan ? { lan } : {}),
  });
  cores.push(core);
  return core;
}

async function scan(core: KioskCore, text: string): Promise<ScanResult> {
  clockOffsetMs += 10_000;
  const answer = await handleKioskCall(core, 'scan', [text]);
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.value;
}

async function refusal(core: KioskCore, text: string): Promise<Extract<Verdict, { kind: 'refuse' }>> {
  const result = await scan(core, text);
  if (result.type !== 'verdict' || result.verdict.kind !== 'refuse') throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  return result.verdict;
}

const auditLog = (): AuditRecord[] => auditRecords(join(dir.dir, 'kiosk.db'));

/** The audit records of refusals, as (reason, tid) pairs, in order. */
function refusalsAudited(): Array<{ reason: unknown; tid: string | null; offline: unknown }> {
  return auditLog()
    .filter((record) => record.kind === 'verdict' && record.detail['kind'] === 'refuse')
    .map((record) => ({ reason: record.detail['reason'], tid: record.tid, offline: record.detail['offline'] }));
}

describe('a kiosk that knows it is offline', () => {
  it('records every refusal with its reason, and the peer (scanner and gate) for seen_by_peer', async () => {
    const seenByPeer = issuer.issueTicket();
    const peer: PeerAdmission = {
      tid: seenByPeer.tid,
      admitted_at: new Date().toISOString(),
      gate: 'B',
      offline: true,
      scanner_id: 'scn_peer_b',
    };
    const core = openCore(peerNetwork([peer]));
    expect((await scan(core, issuer.setupCode())).type).toBe('enrolled');
    const first = issuer.issueTicket();
    await issuer.close();
    // The first scan finds the issuer gone (admitted offline); from then on the kiosk knows it is offline.
    expect(await scan(core, first.code)).toMatchObject({ type: 'verdict', verdict: { kind: 'admit', offline: true } });
    expect((await core.getState()).connection).toBe('offline');
    const before = refusalsAudited().length;

    const shown = [
      await refusal(core, seenByPeer.code),
      await refusal(core, first.code),
      await refusal(core, issuer.issueTicket({ eid: 'OTHER_EVENT' }).code),
      await refusal(core, issuer.issueTicket({ exp: Math.floor(Date.now() / 1000) - 60 }).code),
      await refusal(core, 'not a ticket at all'),
      await refusal(
        core,
        issuer.issueTicket({}, { ...makeSigningKey(77), key: { ...makeSigningKey(77).key, kid: issuer.signingKeys[0]!.key.kid } }).code,
      ),
    ];
    expect(shown.map((verdict) => verdict.reason)).toEqual([
      'admitted_at_other_gate',
      'already_used',
      'wrong_event',
      'expired',
      'not_a_ticket',
      'invalid_signature',
    ]);
    const audited = refusalsAudited().slice(before);
    expect(audited.map((record) => record.reason)).toEqual(shown.map((verdict) => verdict.reason));
    expect(audited.every((record) => record.offline === true)).toBe(true);
    expect(audited[0]!.tid).toBe(seenByPeer.tid);

    const peerRecord = auditLog().find((record) => record.detail['reason'] === 'admitted_at_other_gate');
    expect(peerRecord?.detail).toMatchObject({
      decided_by: 'seen_by_peer',
      peer: { scanner_id: 'scn_peer_b', gate: 'B', admitted_at: peer.admitted_at },
    });
    // Scanned codes are never in the log.
    expect(JSON.stringify(auditLog())).not.toContain('not a ticket at all');
    expect(JSON.stringify(auditLog())).not.toContain(first.code);
    // And the chain still holds.
    expect(await handleKioskCall(core, 'verifyLog', [])).toMatchObject({ ok: true, value: { ok: true } });
  });
});

describe('a kiosk online', () => {
  it('records the issuer refusals and those decided before it is asked, each once', async () => {
    const core = openCore();
    expect((await scan(core, issuer.setupCode())).type).toBe('enrolled');
    const revoked = issuer.issueTicket();
    issuer.tickets.get(revoked.tid)!.revoked = true;
    const before = refusalsAudited().length;
    expect(await refusal(core, revoked.code)).toMatchObject({ reason: 'revoked', offline: false, decided_by: 'issuer' });
    expect((await refusal(core, issuer.issueTicket({ eid: 'OTHER_EVENT' }).code)).reason).toBe('wrong_event');
    expect(refusalsAudited().slice(before)).toEqual([
      { reason: 'revoked', tid: revoked.tid, offline: false },
      { reason: 'wrong_event', tid: expect.any(String), offline: true },
    ]);
  });

  it('records a scanner whose key the issuer no longer accepts', async () => {
    const core = openCore();
    expect((await scan(core, issuer.setupCode())).type).toBe('enrolled');
    await apiKeys.deleteApiKey();
    const ticket = issuer.issueTicket();
    expect((await scan(core, ticket.code)).type).toBe('scanner_unauthorized');
    expect(refusalsAudited().at(-1)).toEqual({ reason: 'scanner_unauthorized', tid: ticket.tid, offline: true });
  });
});
