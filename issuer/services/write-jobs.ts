/**
 * Every write job, in one list: the SQLite database thread of `serve` runs a job it receives by name
 * (store/named-jobs.ts; docs/issuer.md "Where the database is"), and finds it here. The thread refuses to
 * start when a job defined on either thread is not in this list, so a job added without its line here stops
 * `serve` at start-up, naming the job.
 */
import { revokeScannerKeyWrite, revokeTicketWrite } from './admin-actions.js';
import { setTicketTypeAttentionWrite, updateTicketAttentionWrite } from './attention-notes.js';
import { setTicketTypeIdCheckWrite, updateTicketDobWrite } from './id-checks.js';
import { recordHandoutWrite, setTicketTypeHandoutsWrite, updateTicketHandoutsWrite } from './handouts.js';
import { appendScanLogWrite, checkInWrite, pruneStoredAnswersWrite } from './check-in.js';
import { clearCheckInRulesWrite, setCheckInRulesWrite } from './check-in-rules.js';
import { annulCheckInWrite, heartbeatWrite, setOfflinePolicyWrite, updateEventDoorWrite } from './door.js';
import { enrollWrite } from './enrollment.js';
import { manualEntryWrite } from './manual-entry.js';
import { updateTicketPartyWrite } from './party.js';
import { applyAllExitAllWrite, applyExitAllWrite, setExitAllWrite } from './exit-all.js';
import { createScannerSetupWrite, revokeSetupWrite } from './scanner-setup.js';
import { revokeStaffBadgeWrite } from './staff-badges.js';
import { claimDeliveriesWrite, recordAttemptsWrite } from './webhook-delivery.js';
import { addEndpointWrite, auditHeadWrite, disableEndpointWrite, enableEndpointWrite, replayWrite } from './webhooks.js';
import type { JobDefinition } from '../store/named-jobs.js';
import { insertStaffBadgeWrite } from '../store/staff-badges.js';

export const WRITE_JOBS: readonly JobDefinition<never, unknown>[] = [
  // The doors (docs/protocol.md): check-ins, annulments, heartbeats, enrollment.
  checkInWrite,
  appendScanLogWrite,
  pruneStoredAnswersWrite,
  annulCheckInWrite,
  heartbeatWrite,
  enrollWrite,
  // The dashboard's and the CLI's changes.
  revokeTicketWrite,
  revokeScannerKeyWrite,
  createScannerSetupWrite,
  revokeSetupWrite,
  updateEventDoorWrite,
  setOfflinePolicyWrite,
  setCheckInRulesWrite,
  clearCheckInRulesWrite,
  insertStaffBadgeWrite,
  revokeStaffBadgeWrite,
  // Webhooks (docs/issuer.md "Webhooks"): the deliverer's claims and outcomes, the audit head, the CLI's changes.
  claimDeliveriesWrite,
  recordAttemptsWrite,
  auditHeadWrite,
  addEndpointWrite,
  disableEndpointWrite,
  enableEndpointWrite,
  replayWrite,
  // Attention notes (docs/protocol.md "Attention notes (project extension)").
  updateTicketAttentionWrite,
  setTicketTypeAttentionWrite,
  setTicketTypeIdCheckWrite,
  updateTicketDobWrite,
  // A manual check-in from the dashboard (docs/issuer.md "Admin dashboard").
  manualEntryWrite,
  // Check-out at a set time (docs/protocol.md "Check-out at a set time").
  setExitAllWrite,
  applyExitAllWrite,
  applyAllExitAllWrite,
  // Party tickets (docs/protocol.md "Party tickets (project extension)").
  updateTicketPartyWrite,
  // Handouts (docs/protocol.md "Handouts (project extension)"): a kiosk's record, the CLI's and the dashboard's lists.
  recordHandoutWrite,
  setTicketTypeHandoutsWrite,
  updateTicketHandoutsWrite,
];
