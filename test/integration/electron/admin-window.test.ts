/**
 * The admin dashboard window (main/electron/admin-window.ts) without the
 * Electron binary: the certificate verify proc accepts exactly the issuer's
 * pinned certificate, the window stays on the issuer's origin, and thin
 * recorders stand in for Session and WebContents.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSelfSignedCertificate, type TlsMaterial } from '../../../issuer/tls-certificate.js';
import {
  ADMIN_PARTITION,
  adminCertificateVerdict,
  adminWindowOptions,
  applyAdminContentsPolicies,
  applyAdminSessionPolicies,
  CERT_ACCEPT,
  CERT_REJECT,
  isAdminNavigation,
  pemFingerprint,
  type AdminContentsTarget,
  type AdminPin,
  type AdminSessionTarget,
} from '../../../main/electron/admin-window.js';

let dir: string;
let issuerCert: TlsMaterial;
let otherCert: TlsMaterial;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-window-'));
  // Two certificates made the way the issuer makes its own (issuer/server.ts), both for 127.0.0.1.
  issuerCert = await ensureSelfSignedCertificate(path.join(dir, 'issuer'), ['127.0.0.1', 'localhost']);
  otherCert = await ensureSelfSignedCertificate(path.join(dir, 'other'), ['127.0.0.1', 'localhost']);
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const request = (hostname: string, pem: string) => ({ hostname, certificate: { data: pem } });

describe('the certificate verify proc of the admin session', () => {
  it('accepts the pinned certificate on the pinned host, whatever its CA status', () => {
    const pin: AdminPin = { hostname: '127.0.0.1', fingerprint: issuerCert.fingerprint };
    expect(pemFingerprint(issuerCert.cert)).toBe(issuerCert.fingerprint);
    expect(adminCertificateVerdict(request('127.0.0.1', issuerCert.cert), pin)).toBe(CERT_ACCEPT);
    expect(adminCertificateVerdict(request('127.0.0.1', issuerCert.cert), { ...pin, fingerprint: pin.fingerprint.toLowerCase() })).toBe(
      CERT_ACCEPT,
    );
  });

  it.each([
    ['another certificate on the pinned host', '127.0.0.1', 'other'],
    ['the pinned certificate on another host', 'localhost', 'issuer'],
    ['the pinned certificate on a LAN host', '192.168.1.20', 'issuer'],
    ['a public site', 'example.com', 'other'],
    ['something that is not a certificate', '127.0.0.1', 'garbage'],
  ])('refuses %s', (_what, hostname, which) => {
    const pem =
      which === 'issuer'
        ? issuerCert.cert
        : which === 'other'
          ? otherCert.cert
          : '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
    expect(adminCertificateVerdict(request(hostname, pem), { hostname: '127.0.0.1', fingerprint: issuerCert.fingerprint })).toBe(
      CERT_REJECT,
    );
  });

  it('refuses everything while there is no pin (the issuer is not running)', () => {
    expect(adminCertificateVerdict(request('127.0.0.1', issuerCert.cert), null)).toBe(CERT_REJECT);
  });

  it('reads the current pin at each verification and refuses every permission', () => {
    let proc: ((request: unknown, callback: (result: number) => void) => void) | null = null;
    const permissions: { request?: (...args: unknown[]) => void; check?: (...args: unknown[]) => boolean } = {};
    const session = {
      setCertificateVerifyProc: (handler: typeof proc) => (proc = handler),
      setPermissionRequestHandler: (handler: (...args: unknown[]) => void) => (permissions.request = handler),
      setPermissionCheckHandler: (handler: (...args: unknown[]) => boolean) => (permissions.check = handler),
    } as unknown as AdminSessionTarget;
    let pin: AdminPin | null = null;
    applyAdminSessionPolicies(session, () => pin);
    const verify = (pem: string): number => {
      let result = Number.NaN;
      proc!(request('127.0.0.1', pem), (answer) => (result = answer));
      return result;
    };
    expect(verify(issuerCert.cert)).toBe(CERT_REJECT);
    pin = { hostname: '127.0.0.1', fingerprint: issuerCert.fingerprint };
    expect(verify(issuerCert.cert)).toBe(CERT_ACCEPT);
    expect(verify(otherCert.cert)).toBe(CERT_REJECT);

    let granted: boolean | undefined;
    permissions.request!({}, 'notifications', (answer: boolean) => (granted = answer), {});
    expect(granted).toBe(false);
    expect(permissions.check!({}, 'clipboard-read', 'https://127.0.0.1:8443', {})).toBe(false);
  });
});

describe('the admin window', () => {
  it.each([false, true])('is sandboxed, isolated, without preload or Node, in its own in-memory session (kiosk %s)', (kiosk) => {
    const options = adminWindowOptions({ kiosk });
    expect(options.webPreferences).toMatchObject({
      partition: ADMIN_PARTITION,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      devTools: !kiosk,
    });
    expect(options.webPreferences).not.toHaveProperty('preload');
    expect(ADMIN_PARTITION.startsWith('persist:')).toBe(false);
  });

  const ADMIN = 'https://127.0.0.1:8443/admin';
  it.each([
    [ADMIN, true],
    ['https://127.0.0.1:8443/admin/events?x=1#top', true],
    ['https://127.0.0.1:8443/api/v1/checkins/export', true],
    ['http://127.0.0.1:8443/admin', false],
    ['https://127.0.0.1:8444/admin', false],
    ['https://localhost:8443/admin', false],
    ['https://evil.example/admin', false],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['not a url', false],
  ])('navigation to %j allowed: %s', (url, allowed) => {
    expect(isAdminNavigation(url, ADMIN)).toBe(allowed);
  });

  it('allows no navigation while the issuer is stopped', () => {
    expect(isAdminNavigation(ADMIN, null)).toBe(false);
  });

  it('stops navigation off the issuer, <webview>, and every new window', () => {
    const listeners = new Map<string, (event: unknown) => void>();
    let openHandler: (() => unknown) | undefined;
    const contents = {
      on: (name: string, listener: (event: unknown) => void) => listeners.set(name, listener),
      setWindowOpenHandler: (handler: () => unknown) => (openHandler = handler),
    } as unknown as AdminContentsTarget;
    applyAdminContentsPolicies(contents, () => ADMIN);
    const navigate = (name: string, url: string): boolean => {
      let prevented = false;
      listeners.get(name)!({ url, preventDefault: () => (prevented = true) });
      return prevented;
    };
    expect(navigate('will-navigate', 'https://127.0.0.1:8443/admin/tickets')).toBe(false);
    expect(navigate('will-navigate', 'https://evil.example/')).toBe(true);
    expect(navigate('will-redirect', 'https://evil.example/')).toBe(true);
    expect(navigate('will-attach-webview', ADMIN)).toBe(true);
    expect(openHandler!()).toEqual({ action: 'deny' });
  });
});
