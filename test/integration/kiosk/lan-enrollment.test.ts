/**
 * A kiosk's own LAN key (docs/kiosk.md "Kiosks on one LAN"): at enrollment it makes an Ed25519 pair, sends the
 * public half as `lan_public_key`, and keeps the secret half with the issuer's `lan_certificate` in its secret
 * store, never in its state or database; a certificate for another key or scanner is not kept. The loopback
 * issuer does not certify, so the test stands in for the issuer between it and the kiosk (the kiosk's `fetch`),
 * signing with the key the loopback issuer publishes. Also: the event's revoked scanners, kept in kiosk.db.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KioskCore } from '../../../main/kiosk/kiosk-core.js';
import type { FetchLike } from '../../../main/kiosk/sync/issuer-client.js';
import { lanSigningKey } from '../../../main/kiosk/sync/lan-certificate.js';
import { encodeKioskCertificate } from '../../../protocol/kiosk-certificate.js';
import { parseLanCredential } from '../../../main/kiosk/sync/enrollment.js';
import { LocalStore, type Enrollment } from '../../../main/kiosk/store/local-store.js';
import type { IssuerClient } from '../../../main/kiosk/sync/issuer-client.js';
import { RevocationSync } from '../../../main/kiosk/sync/revocation-sync.js';
import type { DiscoveryDocument } from '../../../protocol/index.js';
import { signEd25519 } from '../../../protocol/index.js';
import { LoopbackIssuer } from '../../support/loopback-issuer.js';
import { MemoryApiKeys } from '../../support/unit/memory-api-keys.js';
import { tempDir } from '../../support/temp-dir.js';

/** A secret store that keeps a LAN entry too, as the keyring store does. */
class MemoryKeysWithLan extends MemoryApiKeys {
  lan: string | null = null;
  async saveLanKey(value: string): Promise<void> {
    this.lan = value;
  }
  async loadLanKey(): Promise<string | null> {
    return this.lan;
  }
  async deleteLanKey(): Promise<void> {
    this.lan = null;
  }
}

let issuer: LoopbackIssuer;
let dir: ReturnType<typeof tempDir>;
let core: KioskCore | null = null;

beforeEach(async () => {
  issuer = await new LoopbackIssuer().start();
  dir = tempDir();
});

afterEach(async () => {
  await core?.close();
  core = null;
  await issuer.close();
  dir.cleanup();
});

/** The issuer's side of the exchange: a certificate for the key sent (or, with `tamper`, for something else). */
function certifying(tamper: (payload: Record<string, unknown>) => void = () => {}): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, init);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, string>) : null;
    if (!body?.['lan_public_key'] || !response.ok) return response;
    const answer = (await response.json()) as { issuer: { iss: string }; scope: { eid: string; expires_at: string } } & Record<
      string,
      unknown
    >;
    const signing = issuer.signingKeys[0]!;
    const payload: Record<string, unknown> = {
      v: 1,
      iss: answer.issuer.iss,
      kid: signing.key.kid,
      scanner_id: body['scanner_id'],
      eid: answer.scope.eid,
      gate: null,
      pub: body['lan_public_key'],
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.parse(answer.scope.expires_at) / 1000),
    };
    tamper(payload);
    answer['lan_certificate'] = encodeKioskCertificate(payload as never, (message) => signEd25519(message, signing.secret));
    return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

function enrollRequest(): Record<string, unknown> {
  return issuer.requests.find((r) => r.path === '/api/v1/scanners/enroll')!.body as Record<string, unknown>;
}

describe('the kiosk’s own LAN key', () => {
  it('is made at enrollment; its public half is certified, its secret half kept in the secret store only', async () => {
    const keys = new MemoryKeysWithLan();
    core = new KioskCore({ dbPath: join(dir.dir, 'kiosk.db'), apiKeys: keys, autoDrain: false, fetch: certifying() });
    expect(await core.scan(issuer.setupCode())).toMatchObject({ type: 'enrolled' });
    const sent = enrollRequest()['lan_public_key'];
    expect(sent).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const credential = parseLanCredential(keys.lan);
    expect(credential).not.toBeNull();
    expect(credential!.certificate).toMatch(/^tkc1\./);
    expect(lanSigningKey(credential!.secret)!.publicKey).toBe(sent);
    const state = JSON.stringify(await core.getState());
    expect(state).not.toContain(credential!.secret);
    await core.close();
    core = null;
    for (const file of readdirSync(dir.dir)) expect(readFileSync(join(dir.dir, file)).includes(credential!.secret), file).toBe(false);
  });

  it('a re-enrollment makes a new pair', async () => {
    const keys = new MemoryKeysWithLan();
    core = new KioskCore({ dbPath: join(dir.dir, 'kiosk.db'), apiKeys: keys, autoDrain: false, fetch: certifying() });
    await core.scan(issuer.setupCode());
    const first = parseLanCredential(keys.lan)!.secret;
    const other = new KioskCore({ dbPath: join(dir.dir, 'other.db'), apiKeys: keys, autoDrain: false, fetch: certifying() });
    try {
      await other.scan(issuer.setupCode());
      expect(parseLanCredential(keys.lan)!.secret).not.toBe(first);
    } finally {
      await other.close();
    }
  });

  it.each([
    ['another key', (p: Record<string, unknown>) => void (p['pub'] = 'A'.repeat(43))],
    ['another scanner', (p: Record<string, unknown>) => void (p['scanner_id'] = 'scn_someone_else')],
    ['another event', (p: Record<string, unknown>) => void (p['eid'] = '01JOTHEREVENT0000000000000')],
  ])('a certificate for %s is not kept (and an old entry is removed)', async (_, tamper) => {
    const keys = new MemoryKeysWithLan();
    keys.lan = JSON.stringify({ v: 2, secret: 'old', certificate: 'tkc1.old.old' });
    core = new KioskCore({ dbPath: join(dir.dir, 'kiosk.db'), apiKeys: keys, autoDrain: false, fetch: certifying(tamper) });
    expect(await core.scan(issuer.setupCode())).toMatchObject({ type: 'enrolled' });
    expect(keys.lan).toBeNull();
  });
});

describe('revoked scanners', () => {
  it('are kept per event in kiosk.db, across a restart', () => {
    const path = join(dir.dir, 'kiosk.db');
    const store = LocalStore.open(path);
    expect([...store.revokedScanners('evt_a')]).toEqual([]);
    store.saveRevokedScanners('evt_a', ['scn_stolen']);
    expect([...store.revokedScanners('evt_a')]).toEqual(['scn_stolen']);
    store.close();
    const again = LocalStore.open(path);
    expect([...again.revokedScanners('evt_a')]).toEqual(['scn_stolen']);
    expect([...again.revokedScanners('evt_b')]).toEqual([]);
    again.close();
  });

  it('come with the revocation list, whole on every page, and replace what was kept', async () => {
    const store = LocalStore.open(join(dir.dir, 'kiosk.db'));
    const enrollment = { iss: 'https://tickets.example', eid: 'evt_a' } as Enrollment;
    const document = {
      endpoints: { scanner_revocations: 'https://tickets.example/api/v1/scanners/revocations' },
    } as unknown as DiscoveryDocument;
    let scanners: unknown = [{ scanner_id: 'scn_stolen', revoked_at: '2026-07-18T20:00:00Z' }, { scanner_id: 42 }];
    const client = {
      revocations: async () => ({
        kind: 'answered',
        page: {
          eid: 'evt_a',
          revoked: [],
          next: 'c.1',
          complete: true,
          reset: false,
          server_time: '2026-07-18T21:00:00Z',
          revoked_scanners: scanners,
        },
      }),
    } as unknown as IssuerClient;
    const sync = new RevocationSync({ store, client, now: () => Date.now(), syncIntervalMs: 60_000, maxAgeMs: 3_600_000 });
    expect(await sync.sync(enrollment, document, 'sk_test', 1000)).toMatchObject({ kind: 'synced' });
    expect([...store.revokedScanners('evt_a')]).toEqual(['scn_stolen']);
    // An issuer without the extension leaves what was kept; a later list replaces it.
    scanners = undefined;
    await sync.sync(enrollment, document, 'sk_test', 1000);
    expect([...store.revokedScanners('evt_a')]).toEqual(['scn_stolen']);
    scanners = [{ scanner_id: 'scn_other', revoked_at: '2026-07-18T20:30:00Z' }];
    await sync.sync(enrollment, document, 'sk_test', 1000);
    expect([...store.revokedScanners('evt_a')]).toEqual(['scn_other']);
    store.close();
  });
});
