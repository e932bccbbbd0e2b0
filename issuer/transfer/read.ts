/**
 * `import` reads an export file (file.ts) in two passes, each
 * holding one row at a time (docs/issuer.md "Moving an issuer to the venue
 * and back", "Size"), so a file of any size imports in flat memory:
 *
 * 1. checkExportFile checks all of it before anything is written: the
 *    SHA-256, every row's shape, unique keys, references, ticket codes. It
 *    keeps the header, the signing keys (a handful), a count per table and
 *    compact sets of keys (8-byte fingerprints, compact-set.ts): one per unique
 *    column, for repeats and references, and the (ticket, idempotency key) of
 *    every entry in the admission history, which the merge of check-ins needs
 *    before it reaches that table. References only point to earlier tables
 *    (REFERENCES), so one pass checks them all. A version 1 file also keeps
 *    its derived admission history (one entry per check-in) and each ticket's
 *    event and type, as its file lacks that table.
 * 2. FileRows hands the merge (merge.ts) the rows of each table as
 *    they are read again, and at the end makes sure the file is still, byte
 *    for byte, the one checked.
 */
import crypto from 'node:crypto';
import { isJsonObject } from '../../protocol/fields.js';
import { staffActionProblem } from '../../protocol/staff-actions.js';
import { policyKey, TRANSFER_TABLES, type TransferTable } from './store.js';
import { AdminError } from '../error-catalogue.js';
import { FingerprintSet } from './compact-set.js';
import { JsonStreamError, readJsonPieces, type JsonPiece } from './json-pieces.js';
import { isLater } from './type-settings.js';
import {
  checkFormat,
  checkHeader,
  checkRow,
  checkSigningKeys,
  ExportDigest,
  HEADER_FIELDS,
  invalid,
  isOptionalTable,
  Problems,
  tablesOf,
  ticketCodeProblem,
  upgradeRow,
  version1Entry,
  type ExportHeader,
  type FileRow,
} from './file.js';

/** What the first pass keeps of a file that passed it: all the merge needs besides the rows it reads again. */
export interface CheckedFile {
  /** The file as named on the command line. */
  source: string;
  /** The file's header; `version` is the file's own (its rows are upgraded as they are read). */
  header: ExportHeader;
  signingKeys: FileRow[];
  /** Rows per table, as merged (a version 1 file: its derived admission history). */
  counts: Record<TransferTable, number>;
  /** entryKey(tid, idempotency key) of every entry in the file's admission history. */
  entryKeys: FingerprintSet;
  /** A version 1 file's admission history, derived from its check-ins; null for newer files, which carry theirs. */
  version1History: FileRow[] | null;
  /** SHA-256 of the file's bytes, so the second pass knows it reads the file the first pass checked. */
  bytesSha256: string;
}

/** An entry's key in CheckedFile.entryKeys. */
export const entryKey = (tid: unknown, idempotencyKey: unknown): string => JSON.stringify([tid, idempotencyKey]);

/** Columns whose values are unique in their table (the database would refuse repeats anyway, less clearly). */
const UNIQUE_COLUMNS: Partial<Record<TransferTable, readonly string[]>> = {
  signing_keys: ['kid'],
  events: ['eid'],
  tickets: ['tid'],
  checkins: ['tid'],
  enrollment_tokens: ['token_id', 'token_hash'],
  api_keys: ['api_key_id', 'key_hash'],
  idempotency: ['idempotency_key'],
  scanner_heartbeats: ['api_key_id'],
  event_lan_keys: ['eid'],
  check_in_rules: ['eid'],
  staff_badges: ['sid'],
  handouts: ['hid'],
  exit_all_settings: ['eid'],
};

interface Reference {
  /** The column here, and the unique column of the same name in `to`. */
  column: string;
  to: TransferTable;
  what: string;
}

/**
 * The file must be whole: every reference points into the file itself, so it can create a data dir on its own.
 * Each points to an earlier table in TRANSFER_TABLES, the file's order (test/unit/issuer/json-pieces.test.ts).
 */
export const REFERENCES: Partial<Record<TransferTable, readonly Reference[]>> = {
  tickets: [
    { column: 'eid', to: 'events', what: 'event' },
    { column: 'kid', to: 'signing_keys', what: 'signing key' },
  ],
  checkins: [{ column: 'tid', to: 'tickets', what: 'ticket' }],
  enrollment_tokens: [{ column: 'eid', to: 'events', what: 'event' }],
  api_keys: [
    { column: 'eid', to: 'events', what: 'event' },
    { column: 'token_id', to: 'enrollment_tokens', what: 'setup token' },
  ],
  admission_events: [{ column: 'tid', to: 'tickets', what: 'ticket' }],
  offline_policies: [{ column: 'eid', to: 'events', what: 'event' }],
  scanner_heartbeats: [{ column: 'api_key_id', to: 'api_keys', what: 'scanner key' }],
  event_lan_keys: [{ column: 'eid', to: 'events', what: 'event' }],
  check_in_rules: [{ column: 'eid', to: 'events', what: 'event' }],
  staff_badges: [
    { column: 'eid', to: 'events', what: 'event' },
    { column: 'kid', to: 'signing_keys', what: 'signing key' },
  ],
  ticket_type_id_checks: [{ column: 'eid', to: 'events', what: 'event' }],
  ticket_type_handouts: [{ column: 'eid', to: 'events', what: 'event' }],
  ticket_type_notes: [{ column: 'eid', to: 'events', what: 'event' }],
  handouts: [
    { column: 'eid', to: 'events', what: 'event' },
    { column: 'tid', to: 'tickets', what: 'ticket' },
  ],
  exit_all_settings: [{ column: 'eid', to: 'events', what: 'event' }],
  // The key that sent the heartbeat, and its event (issuer/services/door.ts).
  staff_actions: [
    { column: 'eid', to: 'events', what: 'event' },
    { column: 'api_key_id', to: 'api_keys', what: 'scanner key' },
  ],
};

/** A stored staff record as its heartbeat carried it: the optional fields absent where the row has NULL. */
function staffActionReport(row: FileRow): Record<string, unknown> {
  const report: Record<string, unknown> = {};
  for (const field of ['position', 'hash', 'at', 'event', 'staff_id', 'name', 'role', 'via'] as const) report[field] = row[field];
  for (const field of ['call', 'needs', 'tid'] as const) if (row[field] !== null) report[field] = row[field];
  return report;
}

/** Pass 1: reads and fully checks an export file; nothing is merged from a file that fails here. */
export function checkExportFile(source: string): CheckedFile {
  const bytes = crypto.createHash('sha256');
  const check = new FileCheck(source);
  try {
    for (const piece of readJsonPieces(source, (block) => bytes.update(block))) check.piece(piece);
  } catch (error) {
    throw readError(error, source);
  }
  return check.finish(bytes.digest('hex'));
}

function readError(error: unknown, source: string): unknown {
  if (error instanceof JsonStreamError) return invalid(source, `it is not complete JSON (truncated or damaged?): ${error.message}`);
  const code = (error as NodeJS.ErrnoException).code;
  if (!(error instanceof AdminError) && typeof code === 'string')
    return new AdminError('INVALID_ARGUMENT', `cannot read --from ${source}: ${code}`);
  return error;
}

/** The first pass, fed the file's pieces in order. */
class FileCheck {
  private readonly members: Record<string, unknown> = {};
  /** The file's version once its header is read (at its first table), 0 before. */
  private version = 0;
  private tables: readonly TransferTable[] = [];
  /** Index in `tables` of the table that comes next. */
  private nextTable = 0;
  private table: TransferTable | null = null;
  private sha256: string | null = null;
  private readonly digest = new ExportDigest();
  /** Rows of the wrong shape (and header problems): reported before references, which assume the shape. */
  private readonly shape = new Problems();
  private readonly references = new Problems();
  private readonly unique = new Map<string, FingerprintSet>();
  private readonly counts = Object.fromEntries(TRANSFER_TABLES.map((table) => [table, 0])) as Record<TransferTable, number>;
  private readonly signingKeys: FileRow[] = [];
  private readonly entryKeys = new FingerprintSet();
  private firstEid: unknown = null;
  /** Version 1 only: each ticket's event and type, for the history derived from its check-ins. */
  private readonly version1Tickets = new Map<string, { eid: string; ticket_type: string | null }>();
  private readonly version1History: FileRow[] = [];

  constructor(private readonly source: string) {}

  piece(piece: JsonPiece): void {
    if (this.sha256 !== null) throw invalid(this.source, `"${piece.name}" comes after "sha256", which must be last`);
    switch (piece.kind) {
      case 'member':
        return this.member(piece.name, piece.value);
      case 'array':
        this.readHeader();
        return this.beginTable(piece.name);
      case 'element':
        return this.row(piece.index, piece.value);
      case 'array-end':
        return this.endTable();
    }
  }

  finish(bytesSha256: string): CheckedFile {
    if (this.sha256 === null) {
      this.readHeader();
      this.endOfTables();
      throw invalid(this.source, '"sha256" is missing');
    }
    if (this.digest.hex() !== this.sha256)
      throw invalid(this.source, 'its SHA-256 checksum does not match its content: the file is damaged or was edited');
    this.shape.throwIfAny(this.source);
    this.references.throwIfAny(this.source);
    const header = Object.fromEntries(HEADER_FIELDS.map((name) => [name, this.members[name]])) as unknown as ExportHeader;
    if (this.version < 2) this.counts.admission_events = this.version1History.length;
    return {
      source: this.source,
      header,
      signingKeys: this.signingKeys,
      counts: this.counts,
      entryKeys: this.entryKeys,
      version1History: this.version < 2 ? this.version1History : null,
      bytesSha256,
    };
  }

  /** A member that is not an array: a header member, or the checksum (last). */
  private member(name: string, value: unknown): void {
    if (name === 'sha256') {
      // Before the format tag: the members are out of the order the format has (and export writes).
      if (this.version === 0 && !('format' in this.members))
        throw invalid(this.source, '"sha256" must be the last member, after the header and the tables');
      this.readHeader();
      this.endOfTables();
      if (typeof value !== 'string') throw invalid(this.source, '"sha256" is not a string');
      this.sha256 = value;
      return;
    }
    const isTable = (TRANSFER_TABLES as readonly string[]).includes(name);
    if (this.version === 0 && !isTable) {
      if (name in this.members) throw invalid(this.source, `"${name}" is in the file twice`);
      this.members[name] = value;
      return;
    }
    this.readHeader();
    if (isTable) throw invalid(this.source, `"${name}" is not an array`);
    if ((HEADER_FIELDS as readonly string[]).includes(name))
      throw invalid(this.source, `"${name}" comes after the tables, not before them`);
    throw invalid(this.source, `unknown member "${name}"`);
  }

  /** At the first table (or the checksum): the header is complete, checked and hashed. */
  private readHeader(): void {
    if (this.version !== 0) return;
    this.version = checkFormat(this.members, this.source);
    this.tables = tablesOf(this.version);
    const structure = new Problems();
    for (const name of Object.keys(this.members))
      if (!(HEADER_FIELDS as readonly string[]).includes(name)) structure.add(`unknown member "${name}"`);
    for (const name of HEADER_FIELDS) if (!(name in this.members)) structure.add(`"${name}" is missing`);
    structure.throwIfAny(this.source);
    checkHeader(this.members, this.shape);
    for (const name of HEADER_FIELDS) this.digest.field(name, JSON.stringify(this.members[name]));
  }

  private beginTable(name: string): void {
    const at = (this.tables as readonly string[]).indexOf(name);
    if (at === -1) throw invalid(this.source, `unknown member "${name}"`);
    if (at < this.nextTable) throw invalid(this.source, `"${name}" is in the file twice`);
    if (at > this.nextTable)
      throw invalid(this.source, `"${this.tables[this.nextTable]}" is missing (the tables come in the order export writes them)`);
    this.nextTable = at + 1;
    this.table = this.tables[at]!;
    this.digest.section(this.table);
  }

  private endOfTables(): void {
    const missing = this.tables.slice(this.nextTable).filter((table) => !isOptionalTable(table, this.version));
    if (missing.length > 0) throw invalid(this.source, `"${missing[0]}" is missing`);
  }

  private row(index: number, value: unknown): void {
    const table = this.table!;
    this.digest.row(JSON.stringify(value));
    if (!checkRow(table, this.version, value, index, this.shape)) return;
    const row = upgradeRow(table, this.version, value);
    this.counts[table]++;
    for (const column of UNIQUE_COLUMNS[table] ?? []) {
      if (!this.uniqueSet(table, column).add(String(row[column])))
        this.references.add(`${table} has ${column} ${String(row[column])} twice`);
    }
    for (const { column, to, what } of REFERENCES[table] ?? []) {
      if (!this.uniqueSet(to, column).has(String(row[column])))
        this.references.add(`${table}[${index}].${column} names ${what} ${String(row[column])}, which is not in the file`);
    }
    this.rowRules(table, index, row);
  }

  /** What else one row must be, and what the merge needs from it. */
  private rowRules(table: TransferTable, index: number, row: FileRow): void {
    switch (table) {
      case 'signing_keys':
        this.signingKeys.push(row);
        return;
      case 'events':
        if (index === 0) this.firstEid = row.eid;
        return;
      case 'tickets': {
        const issuer = this.members.issuer;
        const problem = ticketCodeProblem(row, isJsonObject(issuer) ? String(issuer.base_url) : '');
        if (problem !== null) this.references.add(`tickets[${index}].qr ${problem}`);
        if (this.version < 2)
          this.version1Tickets.set(row.tid as string, { eid: row.eid as string, ticket_type: row.ticket_type as string | null });
        return;
      }
      case 'checkins': {
        const ticket = this.version < 2 ? this.version1Tickets.get(row.tid as string) : undefined;
        if (ticket !== undefined) this.addEntry(version1Entry(row, ticket), this.version1History);
        return;
      }
      case 'admission_events':
        this.addEntry(row, null);
        return;
      case 'offline_policies':
        if (!this.uniqueSet(table, 'eid, ticket_type').add(policyKey(row as Record<string, string | number | null>)))
          this.references.add(`offline_policies has event ${String(row.eid)} and ticket type "${String(row.ticket_type)}" twice`);
        if ((row.policy === 'capped') !== (row.cap_per_hour !== null))
          this.references.add(`offline_policies[${index}]: cap_per_hour is set exactly when the policy is "capped"`);
        return;
      case 'ticket_type_id_checks':
      case 'ticket_type_handouts':
      case 'ticket_type_notes':
        if (!this.uniqueSet(table, 'eid, ticket_type').add(policyKey(row as Record<string, string | number | null>)))
          this.references.add(`${table} has event ${String(row.eid)} and ticket type "${String(row.ticket_type)}" twice`);
        // A type rule with neither flag nor note is removed, not kept (issuer/store/attention-notes.ts setTypeRule).
        if (table === 'ticket_type_notes' && row.attention === 0 && row.note === null)
          this.references.add(`ticket_type_notes[${index}] has neither an attention flag nor a note (such a rule is removed, not kept)`);
        return;
      case 'handouts':
        // docs/protocol.md "Handouts (project extension)": a refusal says why, a handout given does not.
        if ((row.status === 'refused') !== (row.reason !== null))
          this.references.add(`handouts[${index}]: reason is set exactly when the status is "refused"`);
        return;
      case 'exit_all_settings':
        // Only a moment after the setting was made is ever done (protocol/exit-all.ts lastExitAllMoment).
        if (row.done !== null && !isLater(row.done as string, row.since as string))
          this.references.add(`exit_all_settings[${index}].done must be after its since (${String(row.since)})`);
        return;
      case 'staff_actions': {
        // The heartbeat's own rule for a record (docs/protocol.md "Scanner heartbeat"), and its one row per record.
        const problem = staffActionProblem(staffActionReport(row), index);
        if (problem !== null)
          this.references.add(`staff_actions[${index}]${problem.field.slice(`staff_actions.${index}`.length)} ${problem.problem}`);
        if (
          !this.uniqueSet(table, 'scanner_id, position, hash').add(
            `${String(row.scanner_id)}\n${String(row.position)}\n${String(row.hash)}`,
          )
        )
          this.references.add(
            `staff_actions has scanner ${String(row.scanner_id)}'s record ${String(row.position)} (${String(row.hash)}) twice`,
          );
        return;
      }
      default:
        return;
    }
  }

  private addEntry(event: FileRow, history: FileRow[] | null): void {
    history?.push(event);
    if (event.action === 'entry' && event.idempotency_key !== null) this.entryKeys.add(entryKey(event.tid, event.idempotency_key));
  }

  private endTable(): void {
    const table = this.table!;
    this.table = null;
    if (table === 'signing_keys') checkSigningKeys(this.signingKeys, this.references);
    if (table === 'events') {
      const scope = this.members.scope;
      const eid = isJsonObject(scope) ? scope.eid : null;
      if (eid !== null && eid !== undefined && (this.counts.events !== 1 || this.firstEid !== eid))
        this.references.add(`"scope" names event ${String(eid)}, but "events" holds other events`);
    }
  }

  private uniqueSet(table: TransferTable, column: string): FingerprintSet {
    const name = `${table}.${column}`;
    let set = this.unique.get(name);
    if (set === undefined) this.unique.set(name, (set = new FingerprintSet()));
    return set;
  }
}

/**
 * Pass 2: the rows of a file that passed checkExportFile, read again table by table in the file's order
 * (TRANSFER_TABLES), each upgraded to the current version as it is read. One per run of the merge's write job:
 * a run on PostgreSQL that lost to a concurrent writer starts again from the file's start with a new one.
 */
export class FileRows {
  private readonly bytes = crypto.createHash('sha256');
  private readonly pieces: Generator<JsonPiece>;

  constructor(private readonly file: CheckedFile) {
    this.pieces = readJsonPieces(file.source, (block) => this.bytes.update(block));
  }

  /** The rows of `table`; ask for tables in their order (the rows of a table not asked for are passed over). */
  *rows(table: TransferTable): Generator<FileRow> {
    const version = this.file.header.version;
    if (!tablesOf(version).includes(table)) {
      if (table === 'admission_events' && this.file.version1History !== null) yield* this.file.version1History;
      return;
    }
    for (let piece = this.next(); !(piece.kind === 'array' && piece.name === table); piece = this.next()) {
      // A table the file may leave out (file.ts isOptionalTable): the checksum follows the tables.
      if (piece.kind === 'member' && piece.name === 'sha256' && isOptionalTable(table, version)) return;
    }
    for (let piece = this.next(); piece.kind !== 'array-end'; piece = this.next()) {
      if (piece.kind === 'element') yield upgradeRow(table, version, piece.value as FileRow);
    }
  }

  /** After the last table: the file must still be the one checked, byte for byte (else the merge rolls back). */
  finish(): void {
    for (let done = false; !done;) done = this.read() === undefined;
    if (this.bytes.digest('hex') !== this.file.bytesSha256) throw this.changed();
  }

  close(): void {
    this.pieces.return(undefined);
  }

  private next(): JsonPiece {
    const piece = this.read();
    if (piece === undefined) throw this.changed();
    return piece;
  }

  private read(): JsonPiece | undefined {
    try {
      const result = this.pieces.next();
      return result.done === true ? undefined : result.value;
    } catch (error) {
      throw error instanceof JsonStreamError ? this.changed() : readError(error, this.file.source);
    }
  }

  private changed(): AdminError {
    return invalid(this.file.source, 'it changed while it was imported (it is read twice: checked, then merged); nothing was imported');
  }
}
