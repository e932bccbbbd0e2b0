/** renderer/view/onsite-issuer-view-model.ts: what the Setup screen's on-site issuer panel shows. */
import { describe, expect, it } from 'vitest';
import type { OnsiteIssuerStatusView } from '../../../renderer/onsite-issuer-bridge-types.js';
import { initRequestFrom, issuerPanelView } from '../../../renderer/view/onsite-issuer-view-model.js';

const fresh: OnsiteIssuerStatusView = {
  initialised: false,
  running: false,
  issuer: null,
  urls: [],
  suggestedBaseUrl: 'https://192.168.7.20:8443',
  warnings: [],
};
const made: OnsiteIssuerStatusView = {
  ...fresh,
  initialised: true,
  issuer: { name: 'Harbour Festival', baseUrl: 'https://192.168.7.20:8443' },
  suggestedBaseUrl: null,
};

describe('issuerPanelView', () => {
  it('offers set-up on a fresh machine, and shows the form with the suggested address once asked', () => {
    expect(issuerPanelView(fresh, 'closed')).toEqual({ kind: 'offer' });
    expect(issuerPanelView(fresh, 'form')).toEqual({ kind: 'form', suggestedBaseUrl: 'https://192.168.7.20:8443' });
    expect(issuerPanelView({ ...fresh, suggestedBaseUrl: null }, 'form')).toEqual({ kind: 'form', suggestedBaseUrl: '' });
  });

  it('once set up: stopped with its name, or running at its base URL (what kiosks use) with any warning', () => {
    expect(issuerPanelView(made, 'form')).toEqual({ kind: 'stopped', name: 'Harbour Festival' });
    const running = {
      ...made,
      running: true,
      urls: ['https://10.0.0.5:8443'],
      warnings: ['the base URL names 192.168.7.20, which this machine no longer has'],
    };
    expect(issuerPanelView(running, 'closed')).toEqual({
      kind: 'running',
      name: 'Harbour Festival',
      url: 'https://192.168.7.20:8443',
      warnings: ['the base URL names 192.168.7.20, which this machine no longer has'],
    });
  });
});

describe('initRequestFrom', () => {
  it('needs a name; an empty address means the suggested one; both are trimmed', () => {
    expect(initRequestFrom('   ', 'https://x:8443')).toBeNull();
    expect(initRequestFrom('  Harbour Festival ', '  ')).toEqual({ name: 'Harbour Festival' });
    expect(initRequestFrom('Harbour Festival', ' https://192.168.7.20:8443 ')).toEqual({
      name: 'Harbour Festival',
      baseUrl: 'https://192.168.7.20:8443',
    });
  });
});
