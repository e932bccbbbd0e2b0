/**
 * The merge of `import` (docs/issuer.md "How `import` merges"): the file's rows, table by table in the file's order,
 * into this data dir's database, in the one write job import.ts runs it in. The rules of each table are here, or in a
 * module of their own: check-ins (merge-checkins.ts), the logs and the kiosks' staff records (merge-logs.ts), ID checks
 * (id-checks.ts), party tickets and handouts (handouts.ts), attention notes (attention-notes.ts), check-out at a set
 * time (exit-all.ts).
 */
import { immutableColumns } from '../store/columns.js';
import { AdminError } from '../error-catalogue.js';
import type { Progress } from '../admin/progress.js';
import {
  policyKey,
  TRANSFER_COLUMNS,
  TRANSFER_KEYS,
  TRANSFER_TABLES,
  type KeyedTable,
  type Row,
  type TransferStore,
  type TransferTable,
} from './store.js';
import { FileRows, type CheckedFile } from './read.js';
import { dobMerge, dobWarning, mergeTypeIdChecks } from './id-checks.js';
import { mergeTicketParty, mergeTypeHandouts, partyWarning } from './handouts.js';
import { isLater } from './type-settings.js';
import { mergeTicketNote, mergeTypeNotes, noteWarning } from './attention-notes.js';
import { mergeCheckin } from './merge-checkins.js';
import { mergeLog, mergeScanLog } from './merge-logs.js';
import { mergeExitAllSettings } from './exit-all.js';
import {
  batches,
  conflict,
  earliest,
  emptyCounts,
  listed,
  MERGE_BATCH,
  PendingInserts,
  requireSame,
  sameColumns,
  type KindCounts,
} from './merge-rows.js';

/** Columns that never change once written (store/columns.ts): a difference means the file is not of this issuer (or is corrupt). */
const IMMUTABLE = {
  tickets: immutableColumns('tickets'),
  enrollment_tokens: immutableColumns('enrollment_tokens'),
  api_keys: immutableColumns('api_keys'),
  staff_badges: immutableColumns('staff_badges'),
  handouts: immutableColumns('handouts'),
};

const PROGRESS_STEP = 1000;

export class Merge {
  // Everything a run learns starts empty: on PostgreSQL a run that lost to a concurrent writer is thrown away
  // with its Merge, and the next run decides only from what it reads through its own transaction.
  private readonly counts = Object.fromEntries(TRANSFER_TABLES.map((table) => [table, emptyCounts()])) as Record<TransferTable, KindCounts>;
  private readonly nowIso: string;
  private readonly conflicts: Row[] = [];
  private readonly warnings: string[] = [];
  /** The file's events, for counting their occupancy again. */
  private readonly eids: string[] = [];
  private done = 0;

  constructor(
    private readonly store: TransferStore,
    private readonly file: CheckedFile,
    private readonly rows: FileRows,
    now: Date,
    private readonly progress: Progress,
  ) {
    this.nowIso = now.toISOString();
  }

  async run(created: boolean) {
    const { issuer, scope } = this.file.header;
    const existing = await this.store.issuerInfo();
    if (created) {
      if (existing) {
        throw new AdminError(
          'ALREADY_INITIALISED',
          `the new data dir's database already holds the issuer "${existing.name}" (${existing.base_url}); refusing to overwrite it`,
        );
      }
      await this.store.insertIssuerInfo(issuer);
    } else if (existing!.name !== issuer.name) {
      this.warnings.push(`the file names the issuer "${issuer.name}"; this data dir's name "${existing!.name}" is kept`);
    }
    // In the file's order (TRANSFER_TABLES), as its rows are read again.
    const keys = await this.mergeSigningKeys();
    await this.mergeEvents();
    await this.mergeTickets();
    await this.mergeCheckins();
    await mergeScanLog(this.store, this.fileRows('scan_log'), this.conflicts, this.counts);
    await this.mergeTokens();
    await this.mergeApiKeys();
    await this.mergeIdempotency();
    await mergeLog(this.store, 'admission_events', this.fileRows('admission_events'), this.counts.admission_events);
    await this.mergeOfflinePolicies();
    await this.mergeHeartbeats();
    await mergeLog(this.store, 'kiosk_log_heads', this.fileRows('kiosk_log_heads'), this.counts.kiosk_log_heads);
    await this.mergeLanKeys();
    await this.mergeCheckInRules();
    await this.mergeStaffBadges();
    await mergeTypeIdChecks(this.store, this.fileRows('ticket_type_id_checks'), this.counts.ticket_type_id_checks);
    await mergeTypeHandouts(this.store, this.fileRows('ticket_type_handouts'), this.counts.ticket_type_handouts);
    await this.mergeRows('handouts', async (dest, row, hid) => (requireSame(dest, row, IMMUTABLE.handouts, `handout ${hid}`), 'unchanged'));
    await mergeTypeNotes(this.store, this.fileRows('ticket_type_notes'), this.counts.ticket_type_notes);
    await mergeExitAllSettings(this.store, this.fileRows('exit_all_settings'), created, this.counts.exit_all_settings);
    await mergeLog(this.store, 'staff_actions', this.fileRows('staff_actions'), this.counts.staff_actions);
    this.rows.finish();
    // Each side counted its own doors: the merged counters are counted again from the merged rows.
    await this.store.recomputeOccupancy(this.eids);
    this.progress.advance(this.done % PROGRESS_STEP);
    const info = (await this.store.issuerInfo())!;
    return {
      issuer: info.base_url,
      name: info.name,
      scope,
      active_kid: keys.active,
      retired_kids: keys.retired,
      counts: this.counts,
      warnings: this.warnings,
    };
  }

  private tick(): void {
    if (++this.done % PROGRESS_STEP === 0) this.progress.advance(PROGRESS_STEP);
  }

  /** The file's rows of `table` as they are read again (FileRows), counted for the progress bar. */
  private *fileRows(table: TransferTable): Generator<Row> {
    for (const row of this.rows.rows(table) as Generator<Row>) {
      this.tick();
      if (table === 'events') this.eids.push(row.eid as string);
      yield row;
    }
  }

  /** Union of keys; retirement wins from either side; then exactly one active key (see the module comment). */
  private async mergeSigningKeys(): Promise<{ active: string; retired: string[] }> {
    const before = new Map((await this.store.allKeys()).map((k) => [k.kid, k]));
    const destActive = await this.store.activeKid();
    // valid_until per kid after the merge, before choosing the active key: null means "still signing" on every side that has it.
    const window = new Map<string, string | null>([...before].map(([kid, k]) => [kid, k.valid_until]));
    const found = await this.store.findMany(
      'signing_keys',
      this.file.signingKeys.map((key) => key.kid as string),
    );
    const added: Row[] = [];
    let fileActive = '';
    for (const key of this.file.signingKeys) {
      this.tick();
      const kid = key.kid as string;
      const validUntil = key.valid_until as string | null;
      if (key.active === true) fileActive = kid;
      const dest = found.get(kid);
      if (dest === undefined) {
        added.push({
          kid,
          public_key: key.public_key as string,
          valid_from: key.valid_from as string,
          valid_until: validUntil,
          active: 0,
        });
      } else if (dest.public_key !== key.public_key) throw conflict(`signing key ${kid} has another public key in the file`);
      window.set(kid, earliest(window.get(kid) ?? null, validUntil));
    }
    await this.store.insertMany('signing_keys', added);
    let active: string;
    if (destActive !== null && window.get(destActive) === null) active = destActive;
    else if (window.get(fileActive) === null) active = fileActive;
    else {
      throw conflict(
        `each side has retired the other's active signing key (${destActive} here, ${fileActive} in the file); run "ticket-issuer key rotate" here, then import again`,
      );
    }
    // Every other key that still signs somewhere stops now, so tickets it signed keep verifying (their iat is earlier).
    const retired = [...window].filter(([kid, validUntil]) => kid !== active && validUntil === null).map(([kid]) => kid);
    for (const kid of retired) window.set(kid, this.nowIso);
    await this.store.deactivateAllKeys();
    for (const [kid, validUntil] of window) if (kid !== active) await this.store.setKeyState(kid, validUntil, false);
    await this.store.setKeyState(active, null, true);

    const counts = this.counts.signing_keys;
    for (const key of this.file.signingKeys) {
      const kid = key.kid as string;
      const old = before.get(kid);
      if (old === undefined) counts.added++;
      else if (old.valid_until === (kid === active ? null : window.get(kid)) && (old.active === 1) === (kid === active)) counts.unchanged++;
      else counts.updated++;
    }
    return { active, retired };
  }

  /**
   * The common walk: each row of the file's `table` is added when this side
   * lacks it; otherwise `existing` merges it and says how to count it (null:
   * counted later, by the audit-log step). Rows are looked up and added in
   * batches, in the file's order (each key is in the file once: file.ts).
   */
  private async mergeRows(
    table: Exclude<KeyedTable, 'signing_keys'>,
    existing: (dest: Row, row: Row, id: string) => Promise<keyof KindCounts | null>,
  ): Promise<void> {
    const counts = this.counts[table];
    const added = new PendingInserts(this.store, table);
    for (const batch of batches(this.fileRows(table), MERGE_BATCH)) {
      const found = await this.store.findMany(
        table,
        batch.map((row) => row[TRANSFER_KEYS[table]] as string),
      );
      for (const row of batch) {
        const id = row[TRANSFER_KEYS[table]] as string;
        const dest = found.get(id);
        if (dest === undefined) {
          await added.add(row);
          counts.added++;
        } else {
          const outcome = await existing(dest, row, id);
          if (outcome !== null) counts[outcome]++;
        }
      }
    }
    await added.flush();
  }

  private async mergeEvents(): Promise<void> {
    const differing: string[] = [];
    await this.mergeRows('events', async (dest, event, eid) => {
      if (sameColumns(dest, event, TRANSFER_COLUMNS.events)) return 'unchanged';
      differing.push(eid);
      return 'conflicts';
    });
    if (differing.length > 0)
      this.warnings.push(`${differing.length} event(s) differ in the file (${listed(differing)}); this data dir's details are kept`);
  }

  /**
   * Revoked on either side stays revoked, from the earlier time, with that time's reason; a date of birth:
   * id-checks.ts; a party size and own items: handouts.ts; an attention flag and note: attention-notes.ts.
   */
  private async mergeTickets(): Promise<void> {
    const otherDob: string[] = [];
    const otherParty: string[] = [];
    const otherNote: string[] = [];
    await this.mergeRows('tickets', async (dest, ticket, tid) => {
      requireSame(dest, ticket, IMMUTABLE.tickets, `ticket ${tid}`);
      const dob = dobMerge(dest, ticket);
      if (dob === 'take') await this.store.setDob(tid, ticket.dob as string);
      if (dob === 'differs') otherDob.push(tid);
      const noteTaken = await mergeTicketNote(this.store, dest, ticket, otherNote);
      const taken = (await mergeTicketParty(this.store, dest, ticket, otherParty)) || dob === 'take' || noteTaken;
      const revokedAt = earliest(dest.revoked_at as string | null, ticket.revoked_at as string | null);
      if (revokedAt === dest.revoked_at) return taken ? 'updated' : 'unchanged';
      await this.store.setRevocation(tid, revokedAt, ticket.revoke_reason as string | null);
      return 'updated';
    });
    for (const warning of [dobWarning(otherDob), partyWarning(otherParty), noteWarning(otherNote)])
      if (warning !== null) this.warnings.push(warning);
  }

  /** One check-in per ticket: merge-checkins.ts. */
  private async mergeCheckins(): Promise<void> {
    const merge = { store: this.store, file: this.file, nowIso: this.nowIso, conflicts: this.conflicts };
    await this.mergeRows('checkins', (dest, incoming, tid) => mergeCheckin(merge, dest, incoming, tid));
  }

  /** Setup tokens: used or revoked on either side stays so (earliest time); failed attempts, the higher count. */
  private async mergeTokens(): Promise<void> {
    await this.mergeRows('enrollment_tokens', async (dest, token, id) => {
      requireSame(dest, token, IMMUTABLE.enrollment_tokens, `setup token ${id}`);
      const usedAt = earliest(dest.used_at as string | null, token.used_at as string | null);
      const revokedAt = earliest(dest.revoked_at as string | null, token.revoked_at as string | null);
      const failed = Math.max(dest.failed_attempts as number, token.failed_attempts as number);
      if (usedAt === dest.used_at && revokedAt === dest.revoked_at && failed === dest.failed_attempts) return 'unchanged';
      await this.store.setTokenState(id, usedAt, revokedAt, failed);
      return 'updated';
    });
  }

  /** Scanner keys (hashes only): enrolled on either side keeps working on both; revoked on either side stays revoked. */
  private async mergeApiKeys(): Promise<void> {
    await this.mergeRows('api_keys', async (dest, key, id) => {
      requireSame(dest, key, IMMUTABLE.api_keys, `scanner key ${id}`);
      const revokedAt = earliest(dest.revoked_at as string | null, key.revoked_at as string | null);
      if (revokedAt === dest.revoked_at) return 'unchanged';
      await this.store.setApiKeyRevocation(id, revokedAt);
      return 'updated';
    });
  }

  /**
   * Stored first answers, so a kiosk that retries a queued scan at the other
   * instance gets the answer it would have got here. A key answered
   * differently on each side keeps this side's answer.
   */
  private async mergeIdempotency(): Promise<void> {
    await this.mergeRows('idempotency', async (dest, answer) =>
      sameColumns(dest, answer, ['request_hash', 'http_status', 'response_body']) ? 'unchanged' : 'conflicts',
    );
    const conflicts = this.counts.idempotency.conflicts;
    if (conflicts > 0)
      this.warnings.push(
        `${conflicts} idempotency key(s) were answered differently by the two instances; this data dir's answers are kept`,
      );
  }

  /** Offline exposure policies per event and ticket type: the one set last (updated_at) stands, this side's on a tie. */
  private async mergeOfflinePolicies(): Promise<void> {
    const counts = this.counts.offline_policies;
    const here = await this.store.offlinePolicies();
    const added = new PendingInserts(this.store, 'offline_policies');
    for (const row of this.fileRows('offline_policies')) {
      const dest = here.get(policyKey(row));
      if (dest === undefined) {
        await added.add(row);
        counts.added++;
      } else if (sameColumns(dest, row, TRANSFER_COLUMNS.offline_policies) || !isLater(row.updated_at, dest.updated_at)) {
        counts.unchanged++;
      } else {
        await this.store.replaceOfflinePolicy(row);
        counts.updated++;
      }
    }
    await added.flush();
  }

  /**
   * An event's LAN key: the first one made stands (docs/kiosk.md "Kiosks on one LAN"). Two different keys mean
   * both copies enrolled kiosks for the event before they met: those of the other copy cannot warn these until
   * they are enrolled again, which the warning says.
   */
  private async mergeLanKeys(): Promise<void> {
    const differing: string[] = [];
    await this.mergeRows('event_lan_keys', async (dest, row, eid) => {
      if (dest.lan_key === row.lan_key) return 'unchanged';
      differing.push(eid);
      return 'conflicts';
    });
    if (differing.length > 0) {
      this.warnings.push(
        `${differing.length} event(s) have another LAN key in the file (${listed(differing)}); this data dir's key is kept: kiosks enrolled on the other copy warn each other only after they are enrolled again here`,
      );
    }
  }

  /** Staff badges (docs/issuer.md "Staff roles and badges"): revoked on either side stays revoked, from the earlier time, with its reason. */
  private async mergeStaffBadges(): Promise<void> {
    await this.mergeRows('staff_badges', async (dest, badge, sid) => {
      requireSame(dest, badge, IMMUTABLE.staff_badges, `staff badge ${sid}`);
      const revokedAt = earliest(dest.revoked_at as string | null, badge.revoked_at as string | null);
      if (revokedAt === dest.revoked_at) return 'unchanged';
      await this.store.setBadgeRevocation(sid, revokedAt, badge.revoked_reason as string | null);
      return 'updated';
    });
  }

  /** An event's check-in rules: the later set stands (the file's when it was set after this copy's). */
  private async mergeCheckInRules(): Promise<void> {
    await this.mergeRows('check_in_rules', async (dest, row) => {
      if (dest.rules === row.rules) return 'unchanged';
      if (!isLater(row.updated_at, dest.updated_at)) return 'unchanged';
      await this.store.replaceCheckInRules(row);
      return 'updated';
    });
  }

  /** What each kiosk last said of itself: the newest report stands. */
  private async mergeHeartbeats(): Promise<void> {
    await this.mergeRows('scanner_heartbeats', async (dest, row) => {
      if (!isLater(row.reported_at, dest.reported_at)) return 'unchanged';
      await this.store.replaceHeartbeat(row);
      return 'updated';
    });
  }
}
