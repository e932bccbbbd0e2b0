/**
 * Staff's status lookup of a ticket (docs/kiosk.md "Staff PIN": a staff-only call): the issuer's record of a
 * scanned ticket code or a typed ticket ID, and what each answer means for the lookup screen.
 * In sync/: it asks the issuer; it decides no verdict.
 */
import { TICKET_CODE_START, decodeTicketCode } from '../../../protocol/index.js';
import type { StatusLookupResult } from '../kiosk-api.js';
import type { LocalStore } from '../store/local-store.js';
import { SCANNER_UNAUTHORIZED_MESSAGE, type IssuerClient } from './issuer-client.js';
import type { IssuerLink } from './issuer-link.js';

export interface StatusLookupDeps {
  store: LocalStore;
  client: IssuerClient;
  link: IssuerLink;
  /** A scanned code as a window read is translated (read-paths.ts). */
  translated: (text: string) => string;
  notEnrolled: string;
}

export async function lookUpStatus(deps: StatusLookupDeps, codeOrTid: string): Promise<StatusLookupResult> {
  const { link } = deps;
  const enrollment = deps.store.getEnrollment();
  if (!enrollment) return { type: 'not_enrolled', message: deps.notEnrolled };
  // A scanner may scan into the lookup field: its code is translated as a window read would be.
  // Typed ticket IDs are not (a person's keyboard types what it shows).
  const typed = codeOrTid.trim();
  const translated = deps.translated(typed);
  const tid = tidFromInput(typed) ?? (translated.startsWith(TICKET_CODE_START) ? tidFromInput(translated) : null);
  if (tid === null) return { type: 'not_a_ticket' };
  const document = await link.documentFor(enrollment);
  const lookup = await link.loadApiKey(enrollment);
  if ('unavailable' in lookup) return { type: 'unavailable', message: lookup.unavailable };
  const apiKey = lookup.key;
  if (!document || !apiKey) return { type: 'unavailable', message: 'the issuer has not been reached yet' };
  const call = await deps.client.status(document.endpoints.status, apiKey, tid, { timeoutMs: link.interactiveTimeoutMs });
  link.noteConnection(call);
  switch (call.kind) {
    case 'answered':
      return { type: 'status', status: call.status };
    case 'not_found':
      return { type: 'not_found' };
    case 'unauthorized':
      return { type: 'scanner_unauthorized', message: SCANNER_UNAUTHORIZED_MESSAGE };
    case 'rate_limited':
      return { type: 'unavailable', message: 'the issuer asks to slow down; try again shortly' };
    case 'unreachable':
      return { type: 'unavailable', message: `the issuer is unreachable (${call.detail})` };
    case 'server_error':
    case 'rejected':
      return { type: 'unavailable', message: `the issuer could not answer (HTTP ${call.status})` };
  }
}

/** A status lookup takes a scanned ticket code or a typed ticket ID. */
function tidFromInput(input: string): string | null {
  if (input.startsWith(TICKET_CODE_START)) {
    try {
      return decodeTicketCode(input).payload.tid;
    } catch {
      return null;
    }
  }
  return /^[0-9A-Za-z_-]{1,128}$/.test(input) ? input : null;
}
