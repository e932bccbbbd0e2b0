/**
 * The app's menu with an "Issuer" menu for the on-site issuer
 * (main/onsite-issuer): start, stop, open the admin dashboard, a new
 * dashboard token, details. Pure: the template and texts are built from the
 * issuer's status, and main.ts turns them into a Menu and dialogs. Imports
 * only types from electron. In kiosk mode the window has no menu bar; the
 * issuer laptop runs the app in a normal window.
 */
import type { MenuItemConstructorOptions } from 'electron';
import type { OnsiteIssuerStatus } from '../onsite-issuer/onsite-issuer.js';

export interface IssuerMenuActions {
  start(): void;
  stop(): void;
  openAdmin(): void;
  newAdminToken(): void;
  showDetails(): void;
}

export const ISSUER_MENU_LABEL = 'Issuer';

/** The one-line state shown at the top of the Issuer menu. */
export function issuerStateLine(status: OnsiteIssuerStatus): string {
  if (!status.initialised) return 'On-site issuer: not set up';
  if (!status.running) return `On-site issuer "${status.issuer!.name}": stopped`;
  return `On-site issuer "${status.issuer!.name}": running at ${status.urls[0] ?? status.adminUrl!.replace(/\/admin$/, '')}`;
}

export function issuerMenu(status: OnsiteIssuerStatus, actions: IssuerMenuActions): MenuItemConstructorOptions {
  return {
    label: ISSUER_MENU_LABEL,
    submenu: [
      { id: 'issuer-state', label: issuerStateLine(status), enabled: false },
      { type: 'separator' },
      { id: 'issuer-start', label: 'Start on-site issuer', enabled: status.initialised && !status.running, click: () => actions.start() },
      { id: 'issuer-stop', label: 'Stop on-site issuer', enabled: status.running, click: () => actions.stop() },
      { type: 'separator' },
      { id: 'issuer-admin', label: 'Open admin dashboard', enabled: status.running, click: () => actions.openAdmin() },
      { id: 'issuer-token', label: 'New admin dashboard token…', enabled: status.initialised, click: () => actions.newAdminToken() },
      { id: 'issuer-details', label: 'Issuer details…', click: () => actions.showDetails() },
    ],
  };
}

/** The whole application menu: the platform's usual menus (copy and paste work in the dashboard's forms) plus Issuer. */
export function applicationMenuTemplate(
  status: OnsiteIssuerStatus,
  actions: IssuerMenuActions,
  platform: NodeJS.Platform = process.platform,
): MenuItemConstructorOptions[] {
  return [
    ...(platform === 'darwin' ? [{ role: 'appMenu' } as const] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    issuerMenu(status, actions),
    { role: 'windowMenu' },
  ];
}

/** What "Issuer details…" shows: everything IT needs to point kiosks and the CLI at this issuer. */
export function issuerDetailsText(status: OnsiteIssuerStatus): { message: string; detail: string } {
  if (!status.initialised) {
    return {
      message: 'The on-site issuer is not set up yet',
      detail: [
        'It needs a name and the address kiosks reach it at. While this kiosk is not set up, its screen offers',
        '"Set up this laptop as the issuer". Or start the app once with',
        `  --onsite-issuer --issuer-name "Your event" [--issuer-base-url ${status.suggestedBaseUrl ?? 'https://<address>:8443'}]`,
        `(the address defaults to ${status.suggestedBaseUrl ?? 'this machine’s first LAN address'}).`,
        '',
        `Data directory: ${status.dataDir}`,
      ].join('\n'),
    };
  }
  const lines = [
    `Base URL (kiosks use this): ${status.issuer!.baseUrl}`,
    status.running
      ? `Listening on ${status.listen!.host}:${status.listen!.port}; reachable at ${status.urls.join(', ') || 'no LAN address'}`
      : 'Stopped.',
    `Certificate SHA-256 fingerprint (kiosks pin it): ${status.fingerprint ?? 'made at the first start'}`,
    `Admin dashboard: ${status.running ? status.adminUrl : 'start the issuer first'}${status.adminTokenSet ? '' : ' (no sign-in token yet: Issuer → New admin dashboard token…)'}`,
    `Scanner rate limit: ${status.scannerRpm.toLocaleString('en')} requests per minute per kiosk`,
    `Data directory: ${status.dataDir}`,
    `  (the command line works on it too: ticket-issuer <command> --data "${status.dataDir}")`,
    ...status.warnings.map((warning) => `Warning: ${warning}`),
  ];
  return { message: `On-site issuer "${status.issuer!.name}"`, detail: lines.join('\n') };
}

/** What "New admin dashboard token…" shows, once. */
export function adminTokenText(token: string, status: OnsiteIssuerStatus): { message: string; detail: string } {
  return {
    message: 'New admin dashboard token',
    detail: [
      token,
      '',
      `Sign in with it on the admin dashboard${status.adminUrl ? ` (${status.adminUrl}, or from another machine at ${status.issuer!.baseUrl}/admin)` : ''}.`,
      'It is shown only now and replaces any earlier token. Keep it like a password: whoever has it can revoke tickets and scanners.',
    ].join('\n'),
  };
}
