/**
 * A manual check-in from the admin dashboard (docs/issuer.md "Admin dashboard", docs/protocol.md "Ticket
 * search"): the same entry a supervisor's kiosk makes with `manual_reason`, judged by the same decision
 * (check-in-decision.ts: revoked, expired, already used, re-entry, rules, capacity), recorded with the reason
 * and `dashboard` as who, and in the audit log. There is no scanner, no idempotency key and no stored answer:
 * the administrator sees the answer at once, and a second click is judged again (already used). A party ticket's
 * entry counts `people` of it (docs/protocol.md "Party tickets (project extension)"), judged as at a kiosk.
 */
import { randomUUID } from 'node:crypto';
import type { DoorCheckInResponse } from '../../protocol/door.js';
import type { ScannerCredential } from '../auth.js';
import { AdminError } from '../error-catalogue.js';
import { appendScanLog, checkInFacts } from '../store/checkins.js';
import { namedJob } from '../store/named-jobs.js';
import { applyEffect, rulesFacts } from './check-in.js';
import { decideCheckIn, type CheckInBody } from './check-in-decision.js';

export const manualEntryWrite = namedJob(
  'manual-entry',
  async (db, args: { tid: string; reason: string; people?: number | undefined; now: string }): Promise<DoorCheckInResponse> => {
    const { ticket, checkin, door } = await checkInFacts(db, args.tid, null);
    if (!ticket) throw new AdminError('TICKET_NOT_FOUND', `no ticket ${args.tid} at this issuer`);
    // The administrator may do what any key may, for the ticket's own event.
    const admin: ScannerCredential = {
      apiKeyId: 'dashboard',
      keyHash: '',
      scannerId: 'dashboard',
      eid: ticket.eid,
      gateId: null,
      role: 'technician',
    };
    const key = randomUUID();
    const body: CheckInBody = {
      tid: ticket.tid,
      eid: ticket.eid,
      scanned_at: args.now,
      scanner_id: admin.scannerId,
      idempotency_key: key,
      action: 'entry',
      manual_reason: args.reason,
      // docs/protocol.md "Party tickets (project extension)": judged as a kiosk's `people`; absent, one person.
      ...(args.people === undefined ? {} : { people: args.people }),
    };
    const decision = decideCheckIn({
      now: new Date(args.now),
      credential: admin,
      body,
      headerKey: key,
      prior: undefined,
      ticket,
      checkin,
      door,
      insideNow: door?.capacity != null ? (door.inside ?? 0) : undefined,
      rules: await rulesFacts(db, body, ticket, door?.rules_json ?? null),
    });
    if (decision.kind !== 'answer' || !('status' in decision.body)) {
      throw new AdminError('INVALID_ARGUMENT', `ticket ${ticket.tid} could not be checked in by hand (${decision.outcome})`);
    }
    if (decision.effect) {
      await applyEffect(db, decision.effect, {
        ticket,
        checkin,
        // The check-in row names its maker: `dashboard` stands for scanner and key, as the actor does.
        scan: { scanner_id: 'dashboard', gate_id: null, api_key_id: 'dashboard', idempotency_key: key, recorded_at: args.now },
        actor: 'dashboard',
        reason: args.reason,
        admittedOffline: false,
        staffId: null,
      });
    }
    await appendScanLog(db, {
      at: args.now,
      scanned_at: args.now,
      tid: ticket.tid,
      eid: ticket.eid,
      scanner_id: null,
      api_key_id: null,
      gate_id: null,
      idempotency_key: null,
      outcome: decision.outcome,
      // The number asked is audited with the reason, a refused one (party_exceeded) too.
      details: JSON.stringify({
        check: decision.check,
        actor: 'dashboard',
        manual_reason: args.reason,
        ...(args.people === undefined ? {} : { people: args.people }),
      }),
    });
    return decision.body;
  },
);
