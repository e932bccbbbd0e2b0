/**
 * issuer/transfer/ is `ticket-issuer export` and `import` (docs/issuer.md
 * "Moving an issuer to the venue and back"): this file, the export file's
 * format; export.ts writes it; read.ts checks and reads it (json-pieces.ts
 * cuts the JSON into rows, compact-set.ts keeps the keys seen in 8 bytes
 * each); import.ts merges it into a data dir (merge.ts and its modules); store.ts is the SQL of both.
 * It is an admin operation, at the layer of issuer/admin/: it may use
 * issuer/store/ and issuer/services/, never issuer/routes/ or issuer/cli/
 * (the CLI calls it, not the other way round).
 *
 * The export file of `ticket-issuer export` / `import`: one JSON object,
 *
 *   {"format":"ticket-issuer-export","version":8,"exported_at","scope","issuer","tls",
 *    "signing_keys":[…],"events":[…],"tickets":[…],"checkins":[…],"scan_log":[…],
 *    "enrollment_tokens":[…],"api_keys":[…],"idempotency":[…],
 *    "admission_events":[…],"offline_policies":[…],"scanner_heartbeats":[…],
 *    "kiosk_log_heads":[…],"event_lan_keys":[…],"check_in_rules":[…],"staff_badges":[…],
 *    "ticket_type_id_checks":[…],"ticket_type_handouts":[…],"handouts":[…],"ticket_type_notes":[…],
 *    "exit_all_settings":[…],"staff_actions":[…],"sha256":"…"}
 *
 * with its members in this order (the header, the tables of its version in
 * TRANSFER_TABLES order, the checksum last), so both are streamed: written row
 * by row out of a large database, and read row by row (read.ts). It
 * ends with a SHA-256 over everything before it, so a truncated, damaged or
 * edited file is refused before anything is merged. Each version is strict:
 * every row has exactly the columns below, of the types below. Version 2 added
 * the door operations (docs/protocol.md "Door operations"): the columns and
 * the tables of V2_ADDITIONS; version 3 the audit chain, version 4 LAN keys and
 * check-in rules, version 5 staff roles and badges (V5_ADDITIONS), version 6 ID checks (V6_ADDITIONS), version 7 party tickets, handouts, handout stations and attention notes (V7_ADDITIONS; a version 7 file written before
 * its notes still reads, V7_NOTES), version 8 check-out at a set time and the kiosks' staff records (V8_ADDITIONS). An older file still reads: each row is checked as its
 * version has it and then given the current version's defaults (upgradeRow),
 * as the migrations give an older database.
 *
 * The file holds private signing keys and the TLS key: it is a secret, like
 * the data dir itself.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { isStaffRole } from '../../protocol/access.js';
import { baseUrlProblem } from '../../protocol/base-url.js';
import { decodeBase64Url } from '../../protocol/base64url.js';
import { isIsoDateTime, isJsonObject } from '../../protocol/fields.js';
import { validateRules } from '../../protocol/check-in-rules.js';
import { formatIdCheck, parseDob, parseIdCheck } from '../../protocol/id-check.js';
import { kidFromPublicKey } from '../../protocol/kid.js';
import { decodeTicketCode } from '../../protocol/ticket-code.js';
import { rawPublicKey } from '../signing.js';
import type { IssuerInfo } from '../store/issuer-info.js';
import { transferTypes, type TransferType as ColumnType } from '../store/columns.js';
import { TRANSFER_TABLES, type TransferTable } from './store.js';
import { AdminError } from '../error-catalogue.js';
import { MAX_EVENT_CAPACITY, MAX_LABEL_LENGTH } from '../admin/validators.js';
import { MAX_SCANNER_TEXT_LENGTH } from '../../protocol/schemas.js';
import { labelCharacterProblem } from '../../protocol/labels.js';
import { V7_TYPE_CHECKS, V7_TYPE_NAMES } from './v7-types.js';
import { V8_TYPE_CHECKS, V8_TYPE_NAMES } from './v8-types.js';

export const EXPORT_FORMAT = 'ticket-issuer-export';
export const EXPORT_VERSION = 8;
/** The oldest version this ticket-issuer still reads. */
export const OLDEST_READ_VERSION = 1;

/** The members before the tables, in the order they are written and hashed. */
export const HEADER_FIELDS = ['format', 'version', 'exported_at', 'scope', 'issuer', 'tls'] as const;

export interface ExportHeader {
  format: typeof EXPORT_FORMAT;
  /** EXPORT_VERSION when written; a file read may be older (its tables then hold version 2's defaults). */
  version: number;
  exported_at: string;
  /** `eid` set: only that event (and every signing key) is in the file. */
  scope: { eid: string | null };
  issuer: IssuerInfo;
  /** The data dir's self-signed HTTPS certificate, so kiosks that pinned it keep connecting. */
  tls: { cert_pem: string; key_pem: string } | null;
}

/** A row as it travels: a table row, except that signing keys say `active` as a boolean and carry their private key. */
export type FileRow = Record<string, string | number | boolean | null>;

export type ExportFile = ExportHeader & Record<TransferTable, FileRow[]> & { sha256: string };

/** A signing key as it travels: the public row plus its private key (PKCS#8 PEM), null if this data dir had none. */
export const PRIVATE_KEY_FIELD = 'private_key_pem';

/** The current version's columns per table and their types (store/columns.ts), and a signing key's private half. */
const COLUMN_TYPES = Object.fromEntries(
  TRANSFER_TABLES.map((table) => [
    table,
    table === 'signing_keys' ? { ...transferTypes(table), [PRIVATE_KEY_FIELD]: 'text?' } : transferTypes(table),
  ]),
) as Record<TransferTable, Record<string, ColumnType>>;

/**
 * What version 5 added (docs/issuer.md "Staff roles and badges"): staff badges, who acted on an admission, the
 * kiosks' clock offsets; and a setup code's and key's `role` in place of its `can_annul` flag (1: supervisor,
 * 0: steward), as migration 9 maps them.
 */
const V5_ADDITIONS = {
  tables: ['staff_badges'] as readonly TransferTable[],
  columns: { admission_events: { staff_id: null }, scanner_heartbeats: { clock_offset_ms: null } } as Partial<
    Record<TransferTable, Record<string, string | number | null>>
  >,
  roleFromFlag: ['enrollment_tokens', 'api_keys'] as readonly TransferTable[],
};

/**
 * What version 6 added (docs/protocol.md "ID checks (project extension)"): the ticket types' checks, a ticket's
 * date of birth, and whether an entry's ID was checked (null in an older file's rows, as migration 15 gives them).
 */
const V6_ADDITIONS = {
  tables: ['ticket_type_id_checks'] as readonly TransferTable[],
  columns: { tickets: { dob: null }, admission_events: { id_check: null } } as Partial<
    Record<TransferTable, Record<string, string | number | null>>
  >,
};

/**
 * What version 7 added: party sizes and people counts (docs/protocol.md "Party tickets (project extension)"), handout
 * lists and handouts, and a handout station's mark on its setup code and key (docs/protocol.md "Handouts (project
 * extension)"). An older file's rows get NULL, as migrations 16 and 17 give an older database: one person each, no
 * items, no station.
 */
const V7_ADDITIONS = {
  tables: ['ticket_type_handouts', 'handouts', 'ticket_type_notes'] as readonly TransferTable[],
  columns: {
    tickets: { attention: 0, note: null, party: null, handouts: null },
    checkins: { party_inside: null, party_admitted: null },
    admission_events: { people: null },
    enrollment_tokens: { station: null },
    api_keys: { station: null },
  } as Partial<Record<TransferTable, Record<string, string | number | null>>>,
};

/**
 * What version 8 added: each event's check-out at a set time (docs/protocol.md "Check-out at a set time") and the
 * kiosks' staff records (docs/protocol.md "Scanner heartbeat"), whole tables only. An older file has neither: its
 * events have no check-out at a set time and no staff records, as before (set it again after importing one).
 */
const V8_ADDITIONS = { tables: ['exit_all_settings', 'staff_actions'] as readonly TransferTable[] };

/**
 * What version 7 added last (docs/protocol.md "Attention notes (project extension)"): a ticket's attention flag and
 * note, and the ticket types' notes. A version 7 file written before them has tickets without both columns and no
 * ticket_type_notes (the last table): it reads as version 6's, with no notes (flag 0, note null).
 */
const V7_NOTES = { table: 'ticket_type_notes' as TransferTable, columns: { attention: 0, note: null } };

/** Whether a table of a file of `version` may be left out: version 7's notes (V7_NOTES). */
export const isOptionalTable = (table: TransferTable, version: number): boolean => version === 7 && table === V7_NOTES.table;

/** What version 4 added: the events' LAN keys and check-in rules. */
const V4_ADDITIONS = { tables: ['event_lan_keys', 'check_in_rules'] as readonly TransferTable[] };

/** What version 3 added (tamper-evident logs): the kiosks' chain heads, and scan_log's chain columns (null: re-chained on import). */
const V3_ADDITIONS = {
  tables: ['kiosk_log_heads'] as readonly TransferTable[],
  columns: { scan_log: { position: null, prev_hash: null, hash: null, origin: null } } as Partial<
    Record<TransferTable, Record<string, string | number | null>>
  >,
};

/** What version 2 added: whole tables, and columns of the older ones (with the value a version 1 file's rows get). */
const V2_ADDITIONS = {
  tables: ['admission_events', 'offline_policies', 'scanner_heartbeats'] as readonly TransferTable[],
  columns: {
    events: { entry_policy: 'single', capacity: null },
    checkins: { state: 'inside', state_at: null, first_checked_in_at: null, entries: 1, version: 0 },
    enrollment_tokens: { direction: null, can_annul: 0, pin_required: 0 },
    api_keys: { can_annul: 0 },
  } as Partial<Record<TransferTable, Record<string, string | number | null>>>,
};

/** The tables a file of `version` holds, in their order. */
export function tablesOf(version: number): readonly TransferTable[] {
  return TRANSFER_TABLES.filter(
    (table) =>
      (version >= 2 || !V2_ADDITIONS.tables.includes(table)) &&
      (version >= 3 || !V3_ADDITIONS.tables.includes(table)) &&
      (version >= 4 || !V4_ADDITIONS.tables.includes(table)) &&
      (version >= 5 || !V5_ADDITIONS.tables.includes(table)) &&
      (version >= 6 || !V6_ADDITIONS.tables.includes(table)) &&
      (version >= 7 || !V7_ADDITIONS.tables.includes(table)) &&
      (version >= 8 || !V8_ADDITIONS.tables.includes(table)),
  );
}

/** The columns (and their types) of `table` in a file of `version`. */
function columnTypes(table: TransferTable, version: number): Record<string, ColumnType> {
  if (version >= 7) return COLUMN_TYPES[table];
  const version6 = without(COLUMN_TYPES[table], V7_ADDITIONS.columns[table]);
  if (version >= 6) return version6;
  const types = without(version6, V6_ADDITIONS.columns[table]);
  if (version >= 5) return types;
  const version4: Record<string, ColumnType> = {};
  for (const [name, type] of Object.entries(types)) {
    if (name in (V5_ADDITIONS.columns[table] ?? {})) continue;
    if (name === 'role' && V5_ADDITIONS.roleFromFlag.includes(table)) version4.can_annul = 'flag';
    else version4[name] = type;
  }
  if (version >= 3) return version4;
  const added = { ...V3_ADDITIONS.columns[table], ...(version >= 2 ? {} : V2_ADDITIONS.columns[table]) };
  return Object.fromEntries(Object.entries(version4).filter(([name]) => !(name in added)));
}

/** `types` without the columns a version added. */
const without = (types: Record<string, ColumnType>, added: Record<string, unknown> | undefined): Record<string, ColumnType> =>
  Object.fromEntries(Object.entries(types).filter(([name]) => !(name in (added ?? {}))));

/** The rules parseLabel applies to a name, venue, gate or ticket type given to the CLI (docs/issuer.md "Threats handled"). */
const isLabelText = (value: string): boolean => value.trim().length <= MAX_LABEL_LENGTH && labelCharacterProblem(value) === null;

const TYPE_CHECKS: Record<ColumnType, (value: unknown) => boolean> = {
  string: (v) => typeof v === 'string' && v !== '',
  text: (v) => typeof v === 'string',
  'text?': (v) => v === null || typeof v === 'string',
  label: (v) => typeof v === 'string' && v.trim() !== '' && isLabelText(v),
  'label?': (v) => v === null || (typeof v === 'string' && isLabelText(v)),
  label_text: (v) => typeof v === 'string' && isLabelText(v),
  time: isIsoDateTime,
  'time?': (v) => v === null || isIsoDateTime(v),
  int: (v) => typeof v === 'number' && Number.isSafeInteger(v),
  bool: (v) => typeof v === 'boolean',
  sha256: (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v),
  kid: (v) => typeof v === 'string' && /^[0-9a-f]{8}$/.test(v),
  flag: (v) => v === 0 || v === 1,
  'count?': (v) => v === null || (typeof v === 'number' && Number.isSafeInteger(v) && v > 0),
  'capacity?': (v) => v === null || (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 && v <= MAX_EVENT_CAPACITY),
  'scanner_text?': (v) => v === null || (typeof v === 'string' && v.length <= MAX_SCANNER_TEXT_LENGTH),
  'int?': (v) => v === null || (typeof v === 'number' && Number.isSafeInteger(v)),
  role: isStaffRole,
  entry_policy: (v) => v === 'single' || v === 'reentry',
  admission_state: (v) => v === 'inside' || v === 'outside' || v === 'annulled',
  'direction?': (v) => v === null || v === 'entry' || v === 'exit',
  action: (v) => v === 'entry' || v === 'exit' || v === 'annul',
  offline_policy: (v) => v === 'online-only' || v === 'offline' || v === 'capped',
  rules_json: (v) => {
    if (typeof v !== 'string') return false;
    try {
      return validateRules(JSON.parse(v)).ok;
    } catch {
      return false;
    }
  },
  'dob?': (v) => v === null || (typeof v === 'string' && parseDob(v) === v),
  id_check_rule: (v) => {
    const rule = typeof v === 'string' ? parseIdCheck(v) : null;
    return rule !== null && rule.kind !== 'none' && formatIdCheck(rule) === v;
  },
  'id_check_state?': (v) => v === null || v === 'checked' || v === 'not_checked',
  ...V7_TYPE_CHECKS,
  ...V8_TYPE_CHECKS,
  json_counts: (v) => {
    if (typeof v !== 'string') return false;
    try {
      const parsed: unknown = JSON.parse(v);
      return isJsonObject(parsed) && Object.values(parsed).every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0);
    } catch {
      return false;
    }
  },
};

const TYPE_NAMES: Record<ColumnType, string> = {
  string: 'a non-empty string',
  text: 'a string',
  'text?': 'a string or null',
  label: `a label: 1-${MAX_LABEL_LENGTH} printable characters (no control, line or direction characters), as event create and ticket issue accept`,
  'label?': `null or a label of at most ${MAX_LABEL_LENGTH} printable characters (no control, line or direction characters), as ticket issue accepts`,
  label_text: `a label of at most ${MAX_LABEL_LENGTH} printable characters (no control, line or direction characters)`,
  time: 'an ISO 8601 date-time',
  'time?': 'an ISO 8601 date-time or null',
  int: 'an integer',
  bool: 'true or false',
  sha256: '64 lowercase hex digits',
  kid: '8 lowercase hex digits',
  flag: '0 or 1',
  'count?': 'a positive integer or null',
  'capacity?': `null or a whole number from 1 to ${MAX_EVENT_CAPACITY}, as event create accepts`,
  'scanner_text?': `null or a string of at most ${MAX_SCANNER_TEXT_LENGTH} characters, as enrollment accepts`,
  'int?': 'an integer or null',
  role: '"steward", "supervisor" or "technician"',
  entry_policy: '"single" or "reentry"',
  admission_state: '"inside", "outside" or "annulled"',
  'direction?': '"entry", "exit" or null',
  action: '"entry", "exit" or "annul"',
  offline_policy: '"online-only", "offline" or "capped"',
  rules_json: 'a check-in rules file as JSON text (docs/protocol.md "Check-in rules")',
  json_counts: 'a JSON object of ticket type → count, as a string',
  'dob?': 'null or a date of birth YYYY-MM-DD',
  id_check_rule: '"name" or "age:N" (N from 1 to 120)',
  'id_check_state?': '"checked", "not_checked" or null',
  ...V7_TYPE_NAMES,
  ...V8_TYPE_NAMES,
};

/**
 * SHA-256 over the header members and every row, each as the exact JSON text
 * written (the writer) or re-serialised after parsing (the reader: JSON.parse
 * keeps key order and these values round-trip exactly).
 */
export class ExportDigest {
  private readonly hash = crypto.createHash('sha256');

  field(name: string, json: string): void {
    this.hash.update(`${name}=${json}\n`);
  }

  section(name: string): void {
    this.hash.update(`${name}:\n`);
  }

  row(json: string): void {
    this.hash.update(`${json}\n`);
  }

  hex(): string {
    return this.hash.digest('hex');
  }
}

/** The checksum of a file: over the tables of its own version (a version 1 file has 8). */
export function digestOf(file: Omit<ExportFile, 'sha256'>): string {
  const digest = new ExportDigest();
  for (const name of HEADER_FIELDS) digest.field(name, JSON.stringify(file[name]));
  for (const table of tablesOf(file.version)) {
    if (file[table] === undefined && isOptionalTable(table, file.version)) continue;
    digest.section(table);
    for (const row of file[table]) digest.row(JSON.stringify(row));
  }
  return digest.hex();
}

const WRITE_BLOCK = 1 << 16;

/**
 * Streams the file to an open descriptor: the header, then each table row by
 * row, then the checksum. Writes are buffered and synchronous, so the caller
 * can run the whole export inside one read transaction (a consistent snapshot
 * while `serve` keeps writing).
 */
export class ExportWriter {
  private readonly digest = new ExportDigest();
  private pending: string[] = [];
  private pendingLength = 0;
  private firstRow = true;

  constructor(private readonly fd: number) {}

  header(header: ExportHeader): void {
    this.write('{');
    HEADER_FIELDS.forEach((name, i) => {
      const json = JSON.stringify(header[name]);
      this.digest.field(name, json);
      this.write(`${i === 0 ? '' : '\n'}${JSON.stringify(name)}:${json},`);
    });
  }

  beginSection(table: TransferTable): void {
    this.digest.section(table);
    this.firstRow = true;
    this.write(`\n${JSON.stringify(table)}:[`);
  }

  row(row: FileRow): void {
    const json = JSON.stringify(row);
    this.digest.row(json);
    this.write(`${this.firstRow ? '' : ','}\n${json}`);
    this.firstRow = false;
  }

  endSection(): void {
    this.write(this.firstRow ? '],' : '\n],');
  }

  finish(): void {
    this.write(`\n"sha256":${JSON.stringify(this.digest.hex())}}\n`);
    this.flush();
  }

  private write(text: string): void {
    this.pending.push(text);
    this.pendingLength += text.length;
    // Written in blocks of some 64 KiB: few system calls, and little text alive at once (flat memory, docs/benchmarks.md (i)).
    if (this.pendingLength >= WRITE_BLOCK) this.flush();
  }

  private flush(): void {
    fs.writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.pendingLength = 0;
  }
}

/** Problems are listed in one message up to this many; the rest are counted, not kept (a damaged file may have millions). */
const MAX_LISTED_PROBLEMS = 10;

export class Problems {
  private readonly listed: string[] = [];
  private count = 0;

  add(problem: string): void {
    if (this.count++ < MAX_LISTED_PROBLEMS) this.listed.push(problem);
  }

  throwIfAny(source: string): void {
    if (this.count === 0) return;
    const more = this.count > MAX_LISTED_PROBLEMS ? ` (and ${this.count - MAX_LISTED_PROBLEMS} more)` : '';
    throw invalid(source, `${this.listed.join('; ')}${more}`);
  }
}

export const invalid = (source: string, why: string): AdminError =>
  new AdminError('IMPORT_FILE_INVALID', `${source} is not a usable ticket-issuer export: ${why}`);

/** The format tag and version of a file's header, checked before anything else is read. */
export function checkFormat(header: Record<string, unknown>, source: string): number {
  if (header.format !== EXPORT_FORMAT) {
    throw invalid(source, `it has no "format": "${EXPORT_FORMAT}" tag (was it written by "ticket-issuer export"?)`);
  }
  const version = header.version;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < OLDEST_READ_VERSION)
    throw invalid(source, '"version" must be a positive integer');
  if (version > EXPORT_VERSION) {
    throw new AdminError(
      'IMPORT_FILE_UNSUPPORTED_VERSION',
      `${source} is export format version ${version}; this ticket-issuer reads versions ${OLDEST_READ_VERSION} to ${EXPORT_VERSION}: upgrade ticket-issuer on this machine`,
    );
  }
  return version;
}

/**
 * A row of an older version in the current version's shape, as the migrations upgrade a database
 * (issuer/store/migrations.ts): version 1 had no door columns (events `single` without a capacity, every
 * check-in inside since its scan, setup codes and keys without direction or rights); versions 1 and 2 no
 * chain columns (the rows are chained on import); versions 1 to 4 no staff, no clock offsets, and a key's annul
 * flag where its role is now (V5_ADDITIONS); versions 1 to 5 no ID checks (V6_ADDITIONS); versions 1 to 6 no parties,
 * handouts, stations or notes (V7_ADDITIONS), and version 7 before its notes none (V7_NOTES); versions 1 to 7 no check-out at
 * a set time and no staff records (V8_ADDITIONS). Tables a version lacked are empty, except version 1's
 * admission history, which read.ts derives from its check-ins (version1Entry).
 */
export function upgradeRow(table: TransferTable, version: number, row: FileRow): FileRow {
  if (version === 7 && table === 'tickets' && !('attention' in row)) Object.assign(row, V7_NOTES.columns);
  if (version >= 7) return row;
  Object.assign(row, V7_ADDITIONS.columns[table]);
  if (version >= 6) return row;
  Object.assign(row, V6_ADDITIONS.columns[table]);
  if (version >= 5) return row;
  if (version < 3) Object.assign(row, V3_ADDITIONS.columns[table]);
  if (version < 2) {
    Object.assign(row, V2_ADDITIONS.columns[table]);
    if (table === 'checkins') {
      row.state_at = row.checked_in_at!;
      row.first_checked_in_at = row.checked_in_at!;
    }
  }
  Object.assign(row, V5_ADDITIONS.columns[table]);
  if (V5_ADDITIONS.roleFromFlag.includes(table)) {
    row.role = row.can_annul === 1 ? 'supervisor' : 'steward';
    delete row.can_annul;
  }
  return row;
}

/** The one entry of a version 1 check-in in the admission history (what migration 3 gives an older database). */
export function version1Entry(checkin: FileRow, ticket: { eid: string; ticket_type: string | null }): FileRow {
  return {
    tid: checkin.tid!,
    eid: ticket.eid,
    action: 'entry',
    at: checkin.checked_in_at!,
    gate_id: checkin.gate_id!,
    scanner_id: checkin.scanner_id!,
    api_key_id: checkin.api_key_id!,
    idempotency_key: checkin.idempotency_key!,
    actor: `scanner:${String(checkin.scanner_id)}`,
    reason: null,
    late: 0,
    admitted_offline: 0,
    ticket_type: ticket.ticket_type,
    recorded_at: checkin.recorded_at!,
    staff_id: null,
  };
}

/** The header's members other than format and version (checkFormat). */
export function checkHeader(file: Record<string, unknown>, problems: Problems): void {
  if (!isIsoDateTime(file.exported_at)) problems.add('"exported_at" is not a date-time');
  const scope: unknown = file.scope;
  if (!isJsonObject(scope) || Object.keys(scope).join() !== 'eid' || !(scope.eid === null || TYPE_CHECKS.string(scope.eid))) {
    problems.add('"scope" must be {"eid": null or an event ID}');
  }
  const issuer: unknown = file.issuer;
  if (!isJsonObject(issuer) || Object.keys(issuer).sort().join() !== 'base_url,created_at,name') {
    problems.add('"issuer" must be {"base_url", "name", "created_at"}');
  } else {
    if (typeof issuer.base_url !== 'string' || baseUrlProblem(issuer.base_url) !== null)
      problems.add('"issuer.base_url" is not an issuer base URL');
    if (!TYPE_CHECKS.label(issuer.name)) problems.add(`"issuer.name" must be ${TYPE_NAMES.label}`);
    if (!isIsoDateTime(issuer.created_at)) problems.add('"issuer.created_at" is not a date-time');
  }
  const tls: unknown = file.tls;
  if (tls !== null) {
    if (
      !isJsonObject(tls) ||
      Object.keys(tls).sort().join() !== 'cert_pem,key_pem' ||
      typeof tls.cert_pem !== 'string' ||
      typeof tls.key_pem !== 'string'
    ) {
      problems.add('"tls" must be null or {"cert_pem", "key_pem"}');
    } else if (!tlsPairMatches(tls.cert_pem, tls.key_pem)) {
      problems.add('"tls" does not hold a certificate and its private key');
    }
  }
}

function tlsPairMatches(certPem: string, keyPem: string): boolean {
  try {
    return new crypto.X509Certificate(certPem).checkPrivateKey(crypto.createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

/** Whether a row has exactly the columns of its table in its file's version, of their types; each problem added. */
export function checkRow(table: TransferTable, version: number, row: unknown, index: number, problems: Problems): row is FileRow {
  const where = `${table}[${index}]`;
  if (!isJsonObject(row)) {
    problems.add(`${where} is not an object`);
    return false;
  }
  // A version 7 ticket written before the notes (V7_NOTES): without both columns.
  const beforeNotes = version === 7 && table === 'tickets' && Object.keys(V7_NOTES.columns).every((name) => !(name in row));
  const types = beforeNotes ? without(columnTypes(table, version), V7_NOTES.columns) : columnTypes(table, version);
  let ok = true;
  const problem = (text: string): void => {
    problems.add(text);
    ok = false;
  };
  for (const name of Object.keys(row)) if (!(name in types)) problem(`${where} has an unknown field "${name}"`);
  for (const [name, type] of Object.entries(types)) {
    if (!(name in row)) problem(`${where}.${name} is missing`);
    else if (!TYPE_CHECKS[type](row[name])) problem(`${where}.${name} must be ${TYPE_NAMES[type]}`);
  }
  return ok;
}

/** The signing keys of a file: each key its own, exactly one active (with its private key). */
export function checkSigningKeys(keys: FileRow[], problems: Problems): void {
  const active = keys.filter((key) => key.active === true);
  if (active.length !== 1) problems.add(`exactly one signing key must be active, not ${active.length}`);
  keys.forEach((key, i) => {
    const where = `signing_keys[${i}]`;
    let raw: Uint8Array;
    try {
      raw = decodeBase64Url(key.public_key as string);
      if (kidFromPublicKey(raw) !== key.kid) return problems.add(`${where}.public_key does not match its kid ${String(key.kid)}`);
    } catch {
      return problems.add(`${where}.public_key is not a base64url Ed25519 public key`);
    }
    if (key.active === true && (key.valid_until !== null || key[PRIVATE_KEY_FIELD] === null)) {
      problems.add(`${where} is active, so it needs its private key and no valid_until`);
    }
    if (key.active === false && key.valid_until === null) problems.add(`${where} is retired but has no valid_until`);
    const pem = key[PRIVATE_KEY_FIELD];
    if (typeof pem === 'string' && !privateKeyMatches(pem, raw))
      problems.add(`${where}.${PRIVATE_KEY_FIELD} is not the private key of kid ${String(key.kid)}`);
  });
}

function privateKeyMatches(pem: string, publicKey: Uint8Array): boolean {
  try {
    const privateKey = crypto.createPrivateKey(pem);
    return (
      privateKey.asymmetricKeyType === 'ed25519' &&
      Buffer.from(rawPublicKey(crypto.createPublicKey(privateKey))).equals(Buffer.from(publicKey))
    );
  } catch {
    return false;
  }
}

/** Tickets are bound to their issuer (`iss`): a code must decode and say what its row says. */
export function ticketCodeProblem(ticket: FileRow, baseUrl: string): string | null {
  let payload;
  try {
    payload = decodeTicketCode(ticket.qr as string).payload;
  } catch (error) {
    return `is not a ticket code (${(error as Error).message})`;
  }
  if (payload.iss !== baseUrl) return `was issued by ${payload.iss}, not by ${baseUrl}`;
  if (payload.tid !== ticket.tid || payload.eid !== ticket.eid || payload.kid !== ticket.kid || payload.exp !== ticket.exp) {
    return 'does not match the ticket row (tid, eid, kid or exp)';
  }
  return null;
}
