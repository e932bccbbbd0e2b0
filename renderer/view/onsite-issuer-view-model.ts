/**
 * What the Setup screen's on-site issuer panel shows (pure): an offer to make
 * this laptop the venue's issuer, the form for its name and address, or its
 * state with the next step. docs/kiosk.md "Running the issuer on-site from the app".
 */
import type { OnsiteIssuerStatusView } from '../onsite-issuer-bridge-types.js';

export type IssuerPanelMode = 'closed' | 'form';

export type IssuerPanelView =
  | { kind: 'offer' }
  | { kind: 'form'; suggestedBaseUrl: string }
  | { kind: 'stopped'; name: string }
  | { kind: 'running'; name: string; url: string; warnings: string[] };

export function issuerPanelView(status: OnsiteIssuerStatusView, mode: IssuerPanelMode): IssuerPanelView {
  if (!status.initialised || !status.issuer) {
    return mode === 'form' ? { kind: 'form', suggestedBaseUrl: status.suggestedBaseUrl ?? '' } : { kind: 'offer' };
  }
  if (!status.running) return { kind: 'stopped', name: status.issuer.name };
  // The base URL is what kiosks use (it is in every setup code); the LAN URLs only say where it listens.
  return { kind: 'running', name: status.issuer.name, url: status.issuer.baseUrl, warnings: status.warnings };
}

/** The form's fields as the init call wants them: a name is required, an empty address means "the suggested one". */
export function initRequestFrom(name: string, baseUrl: string): { name: string; baseUrl?: string } | null {
  const trimmedName = name.trim();
  if (trimmedName.length === 0) return null;
  const trimmedUrl = baseUrl.trim();
  return trimmedUrl.length === 0 ? { name: trimmedName } : { name: trimmedName, baseUrl: trimmedUrl };
}
