/**
 * The Electron window's security settings and policies, as constants and pure
 * functions so tests can check them without the Electron binary. Imports only
 * types from electron; the CSP is shared with the web host
 * (main/host/content-security-policy.ts).
 *
 * Follows Electron's security checklist (electronjs.org/docs/latest/tutorial/security):
 * context isolation, sandbox, no Node in the renderer, web security on, a
 * strict CSP, no navigation, no new windows, no permissions, and IPC answered
 * only for our own page.
 */
import type { BrowserWindowConstructorOptions, Event, Session, WebContents, WindowOpenHandlerResponse } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../host/content-security-policy.js';

/** The web preferences every window of the app shares (the checklist above); devTools and preload are per window. */
export const HARDENED_WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
  navigateOnDragDrop: false,
} as const satisfies NonNullable<BrowserWindowConstructorOptions['webPreferences']>;

export interface WindowChoices {
  /** Absolute path of the compiled preload (.cjs). */
  preloadPath: string;
  /** Full screen, no window frame, no way out but the kiosk's own controls. */
  kiosk: boolean;
}

export function windowOptions({ preloadPath, kiosk }: WindowChoices): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 800,
    show: false, // shown on 'ready-to-show', so the door never flashes a white window
    backgroundColor: '#000000',
    autoHideMenuBar: true,
    kiosk,
    fullscreen: kiosk,
    webPreferences: {
      preload: preloadPath,
      ...HARDENED_WEB_PREFERENCES,
      spellcheck: false,
      // At the door nobody should open developer tools; at a desk they help.
      devTools: !kiosk,
    },
  };
}

/**
 * True only for our own page: the same scheme, host and path as the app's
 * index.html (kiosk://app/index.html, app-scheme.ts; file:// in tests of the
 * file itself); a different hash or query is still our page. Anything
 * unparsable, or on the web, is false.
 */
export function isAppPage(url: string, appPageUrl: string): boolean {
  let target: URL;
  let app: URL;
  try {
    target = new URL(url);
    app = new URL(appPageUrl);
  } catch {
    return false;
  }
  const local = app.protocol === 'file:' || app.protocol === 'kiosk:';
  return local && target.protocol === app.protocol && target.host === app.host && target.pathname === app.pathname;
}

/** Navigation policy: stay on our page. */
export const isAllowedNavigation = isAppPage;

/** IPC policy: answer only frames showing our page (checklist 17, "validate the sender"). */
export const isTrustedSender = (frameUrl: string | undefined, appPageUrl: string): boolean =>
  frameUrl !== undefined && isAppPage(frameUrl, appPageUrl);

export const denyWindowOpen = (): WindowOpenHandlerResponse => ({ action: 'deny' });
export const denyPermissionRequest = (_contents: unknown, _permission: string, callback: (granted: boolean) => void): void =>
  callback(false);
export const denyPermissionCheck = (): boolean => false;

/** The response headers with any CSP the response had replaced by ours. */
export function withContentSecurityPolicy(headers: Record<string, string[]> | undefined): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') result[name] = value;
  }
  result['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
  return result;
}

export type SessionPolicyTarget = Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'> & {
  webRequest: Pick<Session['webRequest'], 'onHeadersReceived'>;
};

/** Session-wide: every response gets our CSP; every permission is refused. */
export function applySessionPolicies(session: SessionPolicyTarget): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders) });
  });
  session.setPermissionRequestHandler(denyPermissionRequest);
  session.setPermissionCheckHandler(denyPermissionCheck);
}

export type ContentsPolicyTarget = Pick<WebContents, 'on' | 'setWindowOpenHandler'>;

/** A frame navigation is allowed only for the main frame, to our own page (the CSP also allows no frames). */
export function isAllowedFrameNavigation(url: string, isMainFrame: boolean, appPageUrl: string): boolean {
  return isMainFrame && isAllowedNavigation(url, appPageUrl);
}

/** Per web contents: no navigation away from our page, no redirects, no frames navigating, no new windows, no <webview>. */
export function applyContentsPolicies(contents: ContentsPolicyTarget, appPageUrl: string): void {
  const stayOnAppPage = (event: Event<{ url: string }>): void => {
    if (!isAllowedNavigation(event.url, appPageUrl)) event.preventDefault();
  };
  contents.on('will-navigate', stayOnAppPage);
  contents.on('will-frame-navigate', (event: Event<{ url: string; isMainFrame: boolean }>) => {
    if (!isAllowedFrameNavigation(event.url, event.isMainFrame, appPageUrl)) event.preventDefault();
  });
  contents.on('will-redirect', stayOnAppPage);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(denyWindowOpen);
}
