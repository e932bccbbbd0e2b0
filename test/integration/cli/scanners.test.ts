/** `scanner setup`, `revoke-setup`, `list`, `revoke`: exact JSON, a PNG that decodes, and no secret kept. */
import fs from 'node:fs';
import path from 'node:path';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeSetupCode } from '../../../protocol/setup-code.js';
import { hashSecret } from '../../../issuer/secrets.js';
import { openDatabase } from '../../../issuer/store/database.js';
import { claimToken, insertApiKey } from '../../../issuer/store/scanners.js';
import {
  checkModuleGrid,
  crop,
  decodeWithBoth,
  pngPixels,
  qrVersion,
  rasteriseTerminalQr,
  sideWithQuietZone,
  terminalQrLines,
  zxingResults,
} from '../../support/qr-decoders.js';
import { sqliteSql } from '../../../issuer/store/sqlite-database.js';
import {
  BASE_URL,
  cliFailure,
  cliJson,
  createEvent,
  initIssuer,
  runCli,
  scratchDir,
  type EventJson,
  type Issuer,
} from '../../support/cli-harness.js';

// jsqr is CommonJS with an ES-style default export: under NodeNext the callable is on `.default` at the type level only.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

interface SetupJson {
  setup_qr: string;
  token_id: string;
  eid: string;
  gate_id: string | null;
  expires_at: string;
}

let issuer: Issuer;
let event: EventJson;

beforeAll(async () => {
  issuer = await initIssuer();
  event = await createEvent(issuer.data);
});

const plusHours = (iso: string, hours: number): string => new Date(Date.parse(iso) + hours * 3_600_000).toISOString().replace('.000Z', 'Z');

describe('scanner setup', () => {
  it('prints {setup_qr, token_id, eid, gate_id, expires_at}; the code carries a single-use token that is stored only as a hash', async () => {
    const setup = await cliJson<SetupJson>(['scanner', 'setup', '--data', issuer.data, '--event', event.eid, '--gate', 'North']);
    expect(Object.keys(setup)).toEqual(['setup_qr', 'token_id', 'eid', 'gate_id', 'expires_at']);
    const keyExpiry = plusHours(event.ends_at, 12);
    expect(setup).toEqual({
      setup_qr: expect.stringMatching(/^tsetup1\./),
      token_id: expect.stringMatching(/^tok_/),
      eid: event.eid,
      gate_id: 'North',
      expires_at: keyExpiry,
    });

    const payload = decodeSetupCode(setup.setup_qr);
    expect(payload).toEqual({
      v: 1,
      iss: BASE_URL,
      enroll_url: `${BASE_URL}/api/v1/scanners/enroll`,
      token: expect.any(String),
      eid: event.eid,
      event_name: 'Spring Gala',
      gate_id: 'North',
      expires_at: keyExpiry,
      // The issuer's self-signed certificate, pinned (setup-cert-pin.test.ts).
      tls_cert_sha256: expect.stringMatching(/^[0-9A-F]{2}(:[0-9A-F]{2}){31}$/),
    });
    // At least 128 bits of entropy (docs/protocol.md "Authentication"): 32 random bytes, base64url.
    expect(Buffer.from(payload.token, 'base64url').length).toBeGreaterThanOrEqual(16);

    const db = openDatabase(path.join(issuer.data, 'issuer.db'));
    const row = db.prepare('SELECT * FROM enrollment_tokens WHERE token_id = ?').get(setup.token_id) as Record<string, unknown>;
    const dump = JSON.stringify(db.prepare('SELECT * FROM enrollment_tokens').all());
    db.close();
    expect(row).toMatchObject({
      token_hash: hashSecret(payload.token),
      eid: event.eid,
      gate_id: 'North',
      expires_at: keyExpiry,
      key_expires_at: keyExpiry,
      used_at: null,
      revoked_at: null,
    });
    expect(dump).not.toContain(payload.token);
  });

  it('takes --expires and --key-expires; without a gate, gate_id is null and absent from the code', async () => {
    const keyExpires = plusHours(event.ends_at, 48);
    const expires = plusHours(event.date, -1);
    const setup = await cliJson<SetupJson>([
      'scanner',
      'setup',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--expires',
      expires,
      '--key-expires',
      keyExpires,
    ]);
    expect(setup.gate_id).toBeNull();
    expect(setup.expires_at).toBe(expires);
    const payload = decodeSetupCode(setup.setup_qr);
    expect('gate_id' in payload).toBe(false);
    expect(payload.expires_at).toBe(expires);
    const db = openDatabase(path.join(issuer.data, 'issuer.db'));
    expect(db.prepare('SELECT expires_at, key_expires_at FROM enrollment_tokens WHERE token_id = ?').get(setup.token_id)).toEqual({
      expires_at: expires,
      key_expires_at: keyExpires,
    });
    db.close();
  });

  it('refuses a token that outlives its key, or expiries in the past', async () => {
    const late = await cliFailure([
      'scanner',
      'setup',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--expires',
      plusHours(event.ends_at, 13),
    ]);
    expect(late.code).toBe('INVALID_DATE');
    expect(late.message).toContain('--key-expires');
    expect(
      (await cliFailure(['scanner', 'setup', '--data', issuer.data, '--event', event.eid, '--key-expires', '2020-01-01T00:00:00Z'])).code,
    ).toBe('INVALID_DATE');
  });

  it('--png writes an image that two QR decoders read back to exactly the setup code', async () => {
    const file = path.join(scratchDir('png-'), 'setup.png');
    const setup = await cliJson<SetupJson>([
      'scanner',
      'setup',
      '--data',
      issuer.data,
      '--event',
      event.eid,
      '--gate',
      'South',
      '--png',
      file,
    ]);
    // A setup code is a credential until it is redeemed: owner only (docs/issuer.md "Files the CLI writes").
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const png = PNG.sync.read(fs.readFileSync(file));
    const decoded = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.byteLength), png.width, png.height);
    expect(decoded?.data).toBe(setup.setup_qr);
    // zxing-cpp too, and the image is whole modules of 6 px with a 4-module quiet zone (docs/issuer.md "QR codes").
    const pixels = pngPixels(fs.readFileSync(file));
    const [read] = await zxingResults(pixels);
    expect(read?.text).toBe(setup.setup_qr);
    expect(checkModuleGrid(pixels, sideWithQuietZone(qrVersion(read!)))).toBe(6);
  });

  it('without --json draws the setup QR in the terminal (readable by two decoders) and prints the raw tsetup1. string', async () => {
    const result = await runCli(['scanner', 'setup', '--data', issuer.data, '--event', event.eid]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/[▀▄█]/);
    expect(result.stdout).toMatch(/^tsetup1\.[\w-]+$/m);
    expect(result.stdout).toContain('tok_');
    // The terminal QR, drawn as a dark terminal shows it, reads with both decoders and has its 4-module quiet zone.
    const code = /^tsetup1\.[\w-]+$/m.exec(result.stdout)![0];
    const image = rasteriseTerminalQr(terminalQrLines(result.stdout));
    expect(await decodeWithBoth(image)).toEqual([code, [code]]);
    const [read] = await zxingResults(image);
    expect(checkModuleGrid(crop(image, 0, 0, image.width, image.width), sideWithQuietZone(qrVersion(read!)))).toBe(4);
  });
});

describe('scanner revoke-setup', () => {
  it('revokes an unused token: {token_id, status: "revoked"}, and again harmlessly', async () => {
    const setup = await cliJson<SetupJson>(['scanner', 'setup', '--data', issuer.data, '--event', event.eid]);
    expect(await cliJson(['scanner', 'revoke-setup', '--data', issuer.data, setup.token_id])).toEqual({
      token_id: setup.token_id,
      status: 'revoked',
    });
    expect(await cliJson(['scanner', 'revoke-setup', '--data', issuer.data, setup.token_id])).toEqual({
      token_id: setup.token_id,
      status: 'revoked',
    });
    const db = openDatabase(path.join(issuer.data, 'issuer.db'));
    expect(
      (db.prepare('SELECT revoked_at FROM enrollment_tokens WHERE token_id = ?').get(setup.token_id) as { revoked_at: string | null })
        .revoked_at,
    ).not.toBeNull();
    db.close();
  });

  it('an unknown token → TOKEN_NOT_FOUND; a used one → TOKEN_ALREADY_USED, pointing to scanner revoke', async () => {
    expect((await cliFailure(['scanner', 'revoke-setup', '--data', issuer.data, 'tok_0000000000000000'])).code).toBe('TOKEN_NOT_FOUND');
    const setup = await cliJson<SetupJson>(['scanner', 'setup', '--data', issuer.data, '--event', event.eid]);
    const db = openDatabase(path.join(issuer.data, 'issuer.db'));
    expect(await claimToken(sqliteSql(db), setup.token_id, new Date().toISOString())).toBe(true);
    db.close();
    const failure = await cliFailure(['scanner', 'revoke-setup', '--data', issuer.data, setup.token_id]);
    expect(failure.code).toBe('TOKEN_ALREADY_USED');
    expect(failure.message).toContain('scanner revoke');
  });
});

describe('scanner list and scanner revoke', () => {
  it('lists enrolled scanners with the contract fields, by event; revoke flips "revoked"', async () => {
    const other = await createEvent(issuer.data);
    const setup = await cliJson<SetupJson>(['scanner', 'setup', '--data', issuer.data, '--event', event.eid, '--gate', 'East']);
    const otherSetup = await cliJson<SetupJson>(['scanner', 'setup', '--data', issuer.data, '--event', other.eid]);
    // Enrollment is the HTTP API's job; here the keys it would create are put in directly.
    const db = openDatabase(path.join(issuer.data, 'issuer.db'));
    const now = new Date().toISOString();
    const expires = plusHours(event.ends_at, 12);
    await insertApiKey(sqliteSql(db), {
      api_key_id: 'key_aaaa000000000001',
      key_hash: hashSecret('secret-1'),
      token_id: setup.token_id,
      scanner_id: 'scanner-1',
      scanner_name: 'Door 1',
      scanner_platform: 'linux',
      eid: event.eid,
      gate_id: 'East',
      expires_at: expires,
      created_at: now,
      role: 'steward',
    });
    await insertApiKey(sqliteSql(db), {
      api_key_id: 'key_aaaa000000000002',
      key_hash: hashSecret('secret-2'),
      token_id: otherSetup.token_id,
      scanner_id: 'scanner-2',
      scanner_name: null,
      scanner_platform: null,
      eid: other.eid,
      gate_id: null,
      expires_at: expires,
      created_at: now,
      role: 'steward',
    });
    db.close();

    const listed = await cliJson<{ scanners: Record<string, unknown>[] }>(['scanner', 'list', '--data', issuer.data, '--event', event.eid]);
    expect(listed).toEqual({
      scanners: [
        {
          scanner_id: 'scanner-1',
          scanner_name: 'Door 1',
          api_key_id: 'key_aaaa000000000001',
          eid: event.eid,
          gate_id: 'East',
          expires_at: expires,
          revoked: false,
          role: 'steward',
        },
      ],
    });
    expect(Object.keys(listed.scanners[0]!)).toEqual([
      'scanner_id',
      'scanner_name',
      'api_key_id',
      'eid',
      'gate_id',
      'expires_at',
      'revoked',
      'role',
    ]);
    const all = await cliJson<{ scanners: { api_key_id: string }[] }>(['scanner', 'list', '--data', issuer.data]);
    expect(all.scanners.map((s) => s.api_key_id)).toEqual(expect.arrayContaining(['key_aaaa000000000001', 'key_aaaa000000000002']));
    expect(JSON.stringify(all)).not.toContain('secret');

    expect(await cliJson(['scanner', 'revoke', '--data', issuer.data, 'key_aaaa000000000001'])).toEqual({
      api_key_id: 'key_aaaa000000000001',
      status: 'revoked',
    });
    const after = await cliJson<{ scanners: { revoked: boolean }[] }>(['scanner', 'list', '--data', issuer.data, '--event', event.eid]);
    expect(after.scanners[0]!.revoked).toBe(true);

    expect((await cliFailure(['scanner', 'revoke', '--data', issuer.data, 'key_nope'])).code).toBe('API_KEY_NOT_FOUND');
    expect((await cliFailure(['scanner', 'list', '--data', issuer.data, '--event', 'nope'])).code).toBe('EVENT_NOT_FOUND');
  });

  it('an empty list is {"scanners": []}', async () => {
    const fresh = await initIssuer();
    expect(await cliJson(['scanner', 'list', '--data', fresh.data])).toEqual({ scanners: [] });
  });
});
