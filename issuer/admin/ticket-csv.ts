/**
 * `ticket import` rows: `holder_name,ticket_type[,expires_at[,attention[,note[,dob[,party]]]]]`, header row
 * optional (dob: docs/protocol.md "ID checks (project extension)"; party: "Party tickets (project extension)") (docs/protocol.md "The admin CLI"; attention and note: docs/protocol.md "Attention notes (project
 * extension)"). All lines are checked before anything is issued, so one bad line means nothing is stored.
 */
import { noteProblem } from '../../protocol/attention.js';
import { parseDob } from '../../protocol/id-check.js';
import { MAX_PARTY, parsePartySize } from '../../protocol/party.js';
import { labelCharacterProblem } from '../labels.js';
import { unixSeconds } from '../time.js';
import { MAX_LABEL_LENGTH, parseDateTime } from './validators.js';
import { CsvSyntaxError, isBlankRecord, parseCsv, type CsvRecord } from '../csv.js';
import { AdminError } from '../error-catalogue.js';
import type { TicketSpec } from './issuance.js';

export const CSV_COLUMNS = ['holder_name', 'ticket_type', 'expires_at', 'attention', 'note', 'dob', 'party'] as const;

/** An attention cell: empty or one of these (any case). */
const ATTENTION_VALUES: Record<string, boolean> = { '': false, '0': false, no: false, false: false, '1': true, yes: true, true: true };

export interface CsvLineError {
  line: number;
  message: string;
}

/** Shown in one message; the rest are counted. */
const MAX_LISTED_ERRORS = 10;

export function ticketSpecsFromCsv(text: string, defaultExp: number, source: string): TicketSpec[] {
  let records: CsvRecord[];
  try {
    records = parseCsv(text).filter((record) => !isBlankRecord(record));
  } catch (error) {
    if (error instanceof CsvSyntaxError) throw csvInvalid(source, [{ line: error.line, message: error.message }]);
    throw error;
  }
  if (records[0] && isHeader(records[0])) records = records.slice(1);
  if (records.length === 0) throw new AdminError('CSV_INVALID', `${source} holds no ticket rows (expected ${CSV_COLUMNS.join(',')})`);

  const specs: TicketSpec[] = [];
  const errors: CsvLineError[] = [];
  for (const record of records) {
    const result = specFromRecord(record, defaultExp);
    if (typeof result === 'string') errors.push({ line: record.line, message: result });
    else specs.push(result);
  }
  if (errors.length > 0) throw csvInvalid(source, errors);
  return specs;
}

function isHeader(record: CsvRecord): boolean {
  const names = record.fields.map((field) => field.trim().toLowerCase());
  return names.length >= 2 && names.length <= CSV_COLUMNS.length && names.every((name, i) => name === CSV_COLUMNS[i]);
}

/** A spec, or what is wrong with the line. */
function specFromRecord(record: CsvRecord, defaultExp: number): TicketSpec | string {
  const fields = record.fields.map((field) => field.trim());
  if (fields.length < 2 || fields.length > CSV_COLUMNS.length) {
    return `expected 2 to ${CSV_COLUMNS.length} fields (${CSV_COLUMNS.join(',')}), found ${fields.length}`;
  }
  const [holderName, ticketType, expiresAt, attention, note, dob, party] = fields as [string, string, ...(string | undefined)[]];
  if (holderName.length > MAX_LABEL_LENGTH) return `holder_name is ${holderName.length} characters long; keep it to ${MAX_LABEL_LENGTH}`;
  if (ticketType.length > MAX_LABEL_LENGTH) return `ticket_type is ${ticketType.length} characters long; keep it to ${MAX_LABEL_LENGTH}`;
  for (const [column, value] of [
    ['holder_name', holderName],
    ['ticket_type', ticketType],
  ] as const) {
    const problem = labelCharacterProblem(value);
    if (problem !== null) return `${column} ${problem}`;
  }
  const spec: TicketSpec = { exp: defaultExp };
  if (holderName !== '') spec.holderName = holderName;
  if (ticketType !== '') spec.ticketType = ticketType;
  if (attention !== undefined) {
    const flag = ATTENTION_VALUES[attention.toLowerCase()];
    if (flag === undefined) return 'attention must be empty, 0, 1, yes, no, true or false';
    if (flag) spec.attention = true;
  }
  if (note !== undefined && note !== '') {
    const problem = noteProblem(note);
    if (problem !== null) return `note ${problem}`;
    spec.note = note;
  }
  if (dob !== undefined && dob !== '') {
    const parsed = parseDob(dob, new Date().toISOString().slice(0, 10));
    if (parsed === null) return 'dob must be a date of birth YYYY-MM-DD, not in the future, e.g. 1990-12-10';
    spec.dob = parsed;
  }
  if (party !== undefined && party !== '') {
    const size = parsePartySize(party);
    if (size === null) return `party must be how many people the ticket admits, a whole number 1 to ${MAX_PARTY}`;
    if (size > 1) spec.party = size;
  }
  if (expiresAt !== undefined && expiresAt !== '') {
    try {
      spec.exp = unixSeconds(parseDateTime(expiresAt, 'expires_at'));
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
  return spec;
}

function csvInvalid(source: string, errors: readonly CsvLineError[]): AdminError {
  const listed = errors.slice(0, MAX_LISTED_ERRORS).map((e) => `line ${e.line}: ${e.message}`);
  if (errors.length > MAX_LISTED_ERRORS) listed.push(`and ${errors.length - MAX_LISTED_ERRORS} more`);
  const count = errors.length === 1 ? '1 bad line' : `${errors.length} bad lines`;
  return new AdminError('CSV_INVALID', `${source}: ${count}, nothing imported; ${listed.join('; ')}`);
}
