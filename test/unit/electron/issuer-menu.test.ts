/** The Issuer menu and its dialogs' texts (main/electron/issuer-menu.ts), from statuses, without Electron. */
import { describe, expect, it } from 'vitest';
import {
  adminTokenText,
  applicationMenuTemplate,
  issuerDetailsText,
  issuerMenu,
  issuerStateLine,
  type IssuerMenuActions,
} from '../../../main/electron/issuer-menu.js';
import type { OnsiteIssuerStatus } from '../../../main/onsite-issuer/onsite-issuer.js';

const FINGERPRINT = Array.from({ length: 32 }, () => 'AB').join(':');

const notSetUp: OnsiteIssuerStatus = {
  initialised: false,
  running: false,
  dataDir: '/home/door/.config/Ticket Kiosk/issuer-data',
  issuer: null,
  listen: null,
  urls: [],
  adminUrl: null,
  fingerprint: null,
  certificateNames: [],
  lanAddresses: ['192.168.1.20'],
  suggestedBaseUrl: 'https://192.168.1.20:8443',
  adminTokenSet: false,
  scannerRpm: 6000,
  warnings: [],
};
const stopped: OnsiteIssuerStatus = {
  ...notSetUp,
  initialised: true,
  issuer: { name: 'Harbour Festival', baseUrl: 'https://192.168.1.20:8443' },
  suggestedBaseUrl: null,
  fingerprint: FINGERPRINT,
};
const running: OnsiteIssuerStatus = {
  ...stopped,
  running: true,
  listen: { host: '0.0.0.0', port: 8443 },
  urls: ['https://192.168.1.20:8443', 'https://10.0.0.5:8443'],
  adminUrl: 'https://127.0.0.1:8443/admin',
  adminTokenSet: true,
};

function recorder(): { actions: IssuerMenuActions; calls: string[] } {
  const calls: string[] = [];
  const actions: IssuerMenuActions = {
    start: () => calls.push('start'),
    stop: () => calls.push('stop'),
    openAdmin: () => calls.push('openAdmin'),
    newAdminToken: () => calls.push('newAdminToken'),
    showDetails: () => calls.push('showDetails'),
  };
  return { actions, calls };
}

const enabled = (status: OnsiteIssuerStatus): Record<string, boolean> => {
  const submenu = issuerMenu(status, recorder().actions).submenu as Array<{ id?: string; enabled?: boolean }>;
  return Object.fromEntries(
    submenu.filter((item) => item.id !== undefined && item.id !== 'issuer-state').map((item) => [item.id!, item.enabled ?? true]),
  );
};

describe('the Issuer menu', () => {
  it('offers what the state allows', () => {
    expect(enabled(notSetUp)).toEqual({
      'issuer-start': false,
      'issuer-stop': false,
      'issuer-admin': false,
      'issuer-token': false,
      'issuer-details': true,
    });
    expect(enabled(stopped)).toEqual({
      'issuer-start': true,
      'issuer-stop': false,
      'issuer-admin': false,
      'issuer-token': true,
      'issuer-details': true,
    });
    expect(enabled(running)).toEqual({
      'issuer-start': false,
      'issuer-stop': true,
      'issuer-admin': true,
      'issuer-token': true,
      'issuer-details': true,
    });
  });

  it('says where the issuer is in its first line', () => {
    expect(issuerStateLine(notSetUp)).toBe('On-site issuer: not set up');
    expect(issuerStateLine(stopped)).toBe('On-site issuer "Harbour Festival": stopped');
    expect(issuerStateLine(running)).toBe('On-site issuer "Harbour Festival": running at https://192.168.1.20:8443');
    expect(issuerStateLine({ ...running, urls: [] })).toBe('On-site issuer "Harbour Festival": running at https://127.0.0.1:8443');
  });

  it('runs the action of each item', () => {
    const { actions, calls } = recorder();
    for (const item of issuerMenu(running, actions).submenu as Array<{ click?: () => void }>) item.click?.();
    expect(calls).toEqual(['start', 'stop', 'openAdmin', 'newAdminToken', 'showDetails']);
  });

  it('sits in the usual application menu, with the app menu on macOS', () => {
    const roles = (platform: NodeJS.Platform) =>
      applicationMenuTemplate(running, recorder().actions, platform).map((menu) => menu.role ?? menu.label);
    expect(roles('linux')).toEqual(['fileMenu', 'editMenu', 'Issuer', 'windowMenu']);
    expect(roles('darwin')).toEqual(['appMenu', 'fileMenu', 'editMenu', 'Issuer', 'windowMenu']);
  });
});

describe('the dialogs', () => {
  it('explain how to set the issuer up', () => {
    const text = issuerDetailsText(notSetUp);
    expect(text.message).toBe('The on-site issuer is not set up yet');
    expect(text.detail).toContain('--onsite-issuer --issuer-name "Your event" [--issuer-base-url https://192.168.1.20:8443]');
    expect(text.detail).toContain(notSetUp.dataDir);
  });

  it('give IT the base URL, the addresses, the fingerprint, the dashboard and the data dir', () => {
    const { message, detail } = issuerDetailsText({ ...running, warnings: ['The base URL names 192.168.1.99 …'] });
    expect(message).toBe('On-site issuer "Harbour Festival"');
    for (const part of [
      'https://192.168.1.20:8443',
      'https://10.0.0.5:8443',
      FINGERPRINT,
      'https://127.0.0.1:8443/admin',
      '6,000 requests per minute',
      running.dataDir,
      'Warning: The base URL names 192.168.1.99',
    ]) {
      expect(detail).toContain(part);
    }
    expect(issuerDetailsText({ ...stopped, adminTokenSet: false }).detail).toContain('no sign-in token yet');
  });

  it('show a new token first, with where to use it', () => {
    const { detail } = adminTokenText('tva_example', running);
    expect(detail.split('\n')[0]).toBe('tva_example');
    expect(detail).toContain('https://127.0.0.1:8443/admin');
    expect(detail).toContain('https://192.168.1.20:8443/admin');
  });
});
