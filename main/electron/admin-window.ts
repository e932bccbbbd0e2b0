/**
 * The window for the on-site issuer's admin dashboard (served by the issuer
 * at /admin), as constants and pure functions so tests check them without
 * the Electron binary. Imports only types from electron.
 *
 * The issuer's certificate is self-signed, so Chromium would refuse it. The
 * window gets a session of its own (ADMIN_PARTITION, in memory) whose
 * certificate verify proc accepts exactly one certificate: the one with the
 * issuer's SHA-256 fingerprint, for the issuer's host, the same pin kiosks use
 * (main/kiosk/sync/tls-pinning.ts). Anything else in that session is refused, and
 * the kiosk's own session and window are untouched. The dashboard page gets
 * no preload and no IPC: it talks to its issuer over HTTPS like any browser.
 */
import { X509Certificate } from 'node:crypto';
import type { BrowserWindowConstructorOptions, Event, Session, WebContents } from 'electron';
import { denyPermissionCheck, denyPermissionRequest, denyWindowOpen, HARDENED_WEB_PREFERENCES } from './security.js';

/** In memory (no "persist:" prefix): nothing of the dashboard's session outlives the app. */
export const ADMIN_PARTITION = 'onsite-issuer-admin';

/** Chromium's answers for setCertificateVerifyProc: 0 accepts, -2 refuses. */
export const CERT_ACCEPT = 0;
export const CERT_REJECT = -2;

export interface AdminPin {
  /** The host the dashboard is loaded from, e.g. 127.0.0.1. */
  hostname: string;
  /** SHA-256 fingerprint, OpenSSL style (uppercase hex pairs joined by ':'), as the issuer reports it. */
  fingerprint: string;
}

export function adminWindowOptions({ kiosk }: { kiosk: boolean }): BrowserWindowConstructorOptions {
  return {
    width: 1200,
    height: 800,
    show: false,
    autoHideMenuBar: true,
    title: 'On-site issuer — admin',
    webPreferences: {
      partition: ADMIN_PARTITION,
      ...HARDENED_WEB_PREFERENCES,
      devTools: !kiosk,
    },
  };
}

/** SHA-256 fingerprint of a PEM certificate in the issuer's notation; null when it is not one. */
export function pemFingerprint(pem: string): string | null {
  try {
    return new X509Certificate(pem).fingerprint256;
  } catch {
    return null;
  }
}

/**
 * The verify proc's answer for the admin session: accept only the pinned
 * certificate on the pinned host. No pin (issuer stopped), another host, or
 * another certificate: refuse. CA validity plays no part: the pin replaces it.
 */
export function adminCertificateVerdict(request: { hostname: string; certificate: { data: string } }, pin: AdminPin | null): number {
  if (pin === null || request.hostname !== pin.hostname) return CERT_REJECT;
  const presented = pemFingerprint(request.certificate.data);
  return presented !== null && presented.toUpperCase() === pin.fingerprint.toUpperCase() ? CERT_ACCEPT : CERT_REJECT;
}

/** Navigation policy of the dashboard window: stay on the issuer's own origin (any path), HTTPS only. */
export function isAdminNavigation(url: string, adminUrl: string | null): boolean {
  if (adminUrl === null) return false;
  try {
    const target = new URL(url);
    return target.protocol === 'https:' && target.origin === new URL(adminUrl).origin;
  } catch {
    return false;
  }
}

export type AdminSessionTarget = Pick<Session, 'setCertificateVerifyProc' | 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>;

/** The admin session: the pin (read at each verification, so a restarted issuer's pin applies) and no permissions. */
export function applyAdminSessionPolicies(session: AdminSessionTarget, currentPin: () => AdminPin | null): void {
  session.setCertificateVerifyProc((request, callback) => callback(adminCertificateVerdict(request, currentPin())));
  session.setPermissionRequestHandler(denyPermissionRequest);
  session.setPermissionCheckHandler(denyPermissionCheck);
}

export type AdminContentsTarget = Pick<WebContents, 'on' | 'setWindowOpenHandler'>;

/** Per web contents of the admin session: only the issuer's origin, no <webview>, no new windows. */
export function applyAdminContentsPolicies(contents: AdminContentsTarget, currentAdminUrl: () => string | null): void {
  const stayOnIssuer = (event: Event<{ url: string }>): void => {
    if (!isAdminNavigation(event.url, currentAdminUrl())) event.preventDefault();
  };
  contents.on('will-navigate', stayOnIssuer);
  contents.on('will-redirect', stayOnIssuer);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(denyWindowOpen);
}
