/**
 * The Electron window's security settings and policies (main/electron/security.ts),
 * without the Electron binary: thin recorders stand in for Session and WebContents.
 * (That the renderer's page carries the same CSP reads renderer/index.html: it is
 * in test/integration/host/content-security-policy.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import {
  applyContentsPolicies,
  applySessionPolicies,
  isAllowedNavigation,
  isTrustedSender,
  windowOptions,
  withContentSecurityPolicy,
  type ContentsPolicyTarget,
  type SessionPolicyTarget,
} from '../../../main/electron/security.js';
import { CONTENT_SECURITY_POLICY } from '../../../main/host/content-security-policy.js';

const APP = 'file:///opt/Ticket%20Kiosk/resources/app.asar/dist/kiosk-page/index.html';

describe('window options', () => {
  it.each([false, true])('isolate, sandbox and keep Node out of the renderer (kiosk %s)', (kiosk) => {
    const options = windowOptions({ preloadPath: '/app/dist/main/electron/preload.cjs', kiosk });
    expect(options.webPreferences).toMatchObject({
      preload: '/app/dist/main/electron/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
    });
    expect(options.kiosk).toBe(kiosk);
    expect(options.fullscreen).toBe(kiosk);
    expect(options.webPreferences?.devTools).toBe(!kiosk);
  });
});

describe('navigation and IPC sender policy', () => {
  const table: Array<[string, boolean]> = [
    [APP, true],
    [`${APP}#/lookup`, true],
    [`${APP}?screen=setup`, true],
    ['file:///opt/Ticket%20Kiosk/resources/app.asar/dist/kiosk-page/other.html', false],
    ['file:///etc/passwd', false],
    ['file://evil.example/opt/Ticket%20Kiosk/resources/app.asar/dist/kiosk-page/index.html', false],
    ['https://evil.example/', false],
    ['http://127.0.0.1:8787/', false],
    ['javascript:alert(1)', false],
    ['data:text/html,<script>alert(1)</script>', false],
    ['about:blank', false],
    ['devtools://devtools/bundled/inspector.html', false],
    ['not a url', false],
    ['', false],
  ];
  it.each(table)('navigation to %j allowed: %s', (url, allowed) => {
    expect(isAllowedNavigation(url, APP)).toBe(allowed);
  });
  it.each(table)('IPC from a frame at %j trusted: %s', (url, trusted) => {
    expect(isTrustedSender(url, APP)).toBe(trusted);
  });
  it('does not trust a sender without a frame', () => {
    expect(isTrustedSender(undefined, APP)).toBe(false);
  });
});

describe('Content-Security-Policy', () => {
  it('allows only our own files: no inline or eval script, no plugins, no base or framing', () => {
    const directives = new Map(
      CONTENT_SECURITY_POLICY.split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name!, values]),
    );
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-|\*|https?:/);
  });

  it('replaces whatever CSP a response had, in any letter case, and keeps other headers', () => {
    const headers = withContentSecurityPolicy({ 'content-security-policy': ['default-src *'], 'X-Other': ['1'] });
    expect(headers).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY], 'X-Other': ['1'] });
    expect(withContentSecurityPolicy(undefined)).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
  });
});

describe('session and web contents policies', () => {
  it('refuses every permission request and check, and adds the CSP to every response', () => {
    const recorded: Record<string, (...args: unknown[]) => unknown> = {};
    const session = {
      webRequest: { onHeadersReceived: (listener: (...args: unknown[]) => unknown) => (recorded['headers'] = listener) },
      setPermissionRequestHandler: (handler: (...args: unknown[]) => unknown) => (recorded['request'] = handler),
      setPermissionCheckHandler: (handler: (...args: unknown[]) => unknown) => (recorded['check'] = handler),
    } as unknown as SessionPolicyTarget;
    applySessionPolicies(session);

    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'hid',
      'usb',
      'serial',
      'clipboard-read',
      'openExternal',
      'fullscreen',
    ]) {
      let granted: boolean | undefined;
      recorded['request']!({}, permission, (answer: boolean) => (granted = answer), {});
      expect(granted).toBe(false);
      expect(recorded['check']!({}, permission, 'file://', {})).toBe(false);
    }
    let response: unknown;
    recorded['headers']!(
      { url: APP, responseHeaders: { 'Content-Security-Policy': ["script-src 'unsafe-inline'"] } },
      (r: unknown) => (response = r),
    );
    expect(response).toEqual({ responseHeaders: { 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });

  it('stops navigation and redirects away from our page, <webview>, and every new window', () => {
    const listeners = new Map<string, (event: { url?: string; preventDefault(): void }) => void>();
    let openHandler: (() => unknown) | undefined;
    const contents = {
      on: (event: string, listener: (event: { url?: string; preventDefault(): void }) => void) => listeners.set(event, listener),
      setWindowOpenHandler: (handler: () => unknown) => (openHandler = handler),
    } as unknown as ContentsPolicyTarget;
    applyContentsPolicies(contents, APP);

    const prevented = (event: string, url?: string): boolean => {
      let stopped = false;
      listeners.get(event)!({ url, preventDefault: () => (stopped = true) });
      return stopped;
    };
    expect(prevented('will-navigate', 'https://evil.example/')).toBe(true);
    expect(prevented('will-navigate', `${APP}#/ready`)).toBe(false);
    expect(prevented('will-redirect', 'https://evil.example/')).toBe(true);
    expect(prevented('will-attach-webview')).toBe(true);
    expect(openHandler!()).toEqual({ action: 'deny' });
  });
});
