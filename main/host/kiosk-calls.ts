/**
 * The KioskApi calls as plain functions of (core, method, args) → answer.
 * Electron-free: the Electron shell (ipcMain.handle) and the web host (POST
 * /api/kiosk/<method>) both answer through handleKioskCall, so both validate
 * the same way and answer the same envelopes.
 *
 * Everything arriving here is untrusted (a compromised renderer, or any page
 * that reaches the web host): every argument is checked for type, count and
 * length before the core sees it. Answers are plain JSON: never an Error
 * object (its stack and any attached cause would cross the boundary) and never
 * a secret; unexpected failures become a fixed message, and the host gets the
 * error for its own log through `onInternalError`.
 */
import { handoutItemProblem } from '../../protocol/handouts.js';
import { FOREIGN_LAYOUTS } from '../../protocol/keyboard-layouts.js';
import type { KioskApi, LanesRequest, LanguageCode, ReadDetails, StaffPersonRequest } from '../kiosk/kiosk-api.js';
import { SecretStoreUnavailableError } from '../kiosk/store/api-key-store.js';
import { answerCall, failure, InvalidInput, noArguments, UNSAFE_TEXT } from './call-envelope.js';
import { KIOSK_CHANNELS } from './call-channels.js';
import { MAX_REASON_LENGTH, type GateDirection } from '../../protocol/index.js';
import { MAX_PARTY } from '../../protocol/party.js';
import { isStaffRole, type KioskCall } from '../../protocol/access.js';
import { MAX_SEARCH_QUERY_LENGTH } from '../../protocol/search-name.js';

/** The request/answer calls of KioskApi (onStateChange is a push, not a call). */
export type KioskCalls = Omit<KioskApi, 'onStateChange'>;
export type KioskCallName = keyof typeof KIOSK_CHANNELS & keyof KioskCalls;
/**
 * Every page call has its row in the access table (protocol/access.ts, docs/protocol.md "Roles and rights"),
 * which the core's guard reads: a call without one does not compile.
 */
export const KIOSK_CALL_NAMES = Object.keys(KIOSK_CHANNELS) as KioskCallName[] satisfies readonly KioskCall[];

export type AnswerErrorCode =
  /** No such KioskApi call. */
  | 'unknown_method'
  /** The caller is not the kiosk's own page (another frame, another origin). */
  | 'forbidden'
  /** Wrong argument count, type or length; the message says which. */
  | 'invalid_input'
  /** The OS keyring cannot keep the API key; the message says what IT must install. */
  | 'secret_store_unavailable'
  /** Anything else: details go to the host's log only. */
  | 'internal_error';

export interface AnswerError {
  code: AnswerErrorCode;
  message: string;
}

export type Answer<T> = { ok: true; value: T } | { ok: false; error: AnswerError };
export type KioskAnswer<M extends KioskCallName> = Answer<Awaited<ReturnType<KioskCalls[M]>>>;

/** Longest string any call accepts: a QR Code holds at most 2,953 bytes, so 4096 covers every real scan. */
export const MAX_INPUT_LENGTH = 4096;
/** The core's own limit for scanner names (local-store.ts), checked here so the answer says so. */
export const MAX_SCANNER_NAME_LENGTH = 200;

export const INTERNAL_ERROR_MESSAGE = 'The kiosk could not handle this request. The details are in the kiosk log.';

export interface HandleOptions {
  /** Called with any unexpected error, for the host's log. Never forwarded to the caller. */
  onInternalError?: (method: KioskCallName, error: unknown) => void;
}

export function isKioskCallName(name: string): name is KioskCallName {
  return Object.hasOwn(KIOSK_CHANNELS, name);
}

/** Runs one call against the core. Never rejects: every outcome is an Answer. */
export async function handleKioskCall<M extends KioskCallName>(
  core: KioskCalls,
  method: M,
  args: unknown,
  options?: HandleOptions,
): Promise<KioskAnswer<M>>;
export async function handleKioskCall(core: KioskCalls, method: string, args: unknown, options?: HandleOptions): Promise<Answer<unknown>>;
export async function handleKioskCall(
  core: KioskCalls,
  method: string,
  args: unknown,
  options: HandleOptions = {},
): Promise<Answer<unknown>> {
  if (!isKioskCallName(method)) return failure('unknown_method', 'There is no such kiosk call.');
  return answerCall(() => boundCall(core, method, args), {
    // Its messages are written for IT and never contain the key (main/kiosk/store/api-key-store.ts).
    expectedFailure: (error) => (error instanceof SecretStoreUnavailableError ? failure('secret_store_unavailable', error.message) : null),
    onInternalError: (error) => options.onInternalError?.(method, error),
    internalErrorMessage: INTERNAL_ERROR_MESSAGE,
  });
}

/** Validates the arguments for `method` and returns the call to make, or throws InvalidInput. */
function boundCall(core: KioskCalls, method: KioskCallName, args: unknown): () => Promise<unknown> {
  if (!Array.isArray(args)) throw new InvalidInput('The arguments must be a list.');
  switch (method) {
    case 'scan': {
      // The text, and optionally how the page's keyboard wedge read it (for the calibration diagnosis).
      if (args.length === 2) {
        const text = stringArgument(args[0], 'the scanned text');
        const read = readDetails(args[1]);
        return () => core.scan(text, read);
      }
      const text = onlyString(args, 'the scanned text');
      return () => core.scan(text);
    }
    case 'lookupStatus': {
      const codeOrTid = onlyString(args, 'the ticket code or ID');
      return () => core.lookupStatus(codeOrTid);
    }
    // docs/kiosk.md "Finding a ticket": a query as the issuer takes it, and a manual check-in's ticket and reason.
    case 'searchTickets': {
      const query = onlyString(args, 'the search').trim();
      if (query.length === 0 || query.length > MAX_SEARCH_QUERY_LENGTH || UNSAFE_TEXT.test(query))
        throw new InvalidInput(`The search must have 1 to ${MAX_SEARCH_QUERY_LENGTH} characters, without control characters.`);
      return () => core.searchTickets(query);
    }
    case 'manualCheckIn': {
      if (args.length !== 2 && args.length !== 3)
        throw new InvalidInput('Expected two or three arguments: the ticket ID, the reason and, for a party ticket, how many people.');
      const tid = ticketId(args[0]);
      const reason = annulReason(args[1]);
      if (args.length === 2) return () => core.manualCheckIn(tid, reason);
      const people = partyPeople(args[2]);
      return () => core.manualCheckIn(tid, reason, people);
    }
    case 'setScannerName': {
      const name = scannerName(onlyString(args, 'the scanner name'));
      return () => core.setScannerName(name);
    }
    case 'confirmReEnroll':
      noArguments(args);
      return () => core.confirmReEnroll();
    case 'cancelReEnroll':
      noArguments(args);
      return () => core.cancelReEnroll();
    case 'getState':
      noArguments(args);
      return () => core.getState();
    case 'resetCalibration':
      noArguments(args);
      return () => core.resetCalibration();
    case 'calibrate': {
      if (args.length !== 1 || typeof args[0] !== 'boolean')
        throw new InvalidInput('Expected exactly one argument: keep (true) or discard (false).');
      const keep = args[0];
      return () => core.calibrate(keep);
    }
    // The PIN is checked for shape only; it never appears in an answer or a log line.
    case 'unlockStaff': {
      const pin = staffPin(args);
      return () => core.unlockStaff(pin);
    }
    case 'setStaffPin': {
      // The kiosk PIN, or (a second argument) a crew member's own PIN: staff id, name, role (docs/kiosk.md "Staff PIN").
      if (args.length === 2) {
        const pin = staffPin(args.slice(0, 1));
        const person = staffPersonRequest(args[1]);
        return () => core.setStaffPin(pin, person);
      }
      const pin = staffPin(args);
      return () => core.setStaffPin(pin);
    }
    case 'removeStaffPin': {
      const [staffId] = args;
      if (args.length !== 1 || typeof staffId !== 'string' || !/^[0-9A-Za-z_.-]{1,80}$/.test(staffId))
        throw new InvalidInput('Expected one argument: the staff id (1 to 80 letters, digits, . _ or -).');
      return () => core.removeStaffPin(staffId);
    }
    case 'lockStaff':
      noArguments(args);
      return () => core.lockStaff();
    case 'verifyLog':
      noArguments(args);
      return () => core.verifyLog();
    case 'attentionDone':
      noArguments(args);
      return () => core.attentionDone();
    case 'overrideAttention':
      noArguments(args);
      return () => core.overrideAttention();
    // docs/kiosk.md "ID checks": the waiting scan's prompt answered, or overridden by a supervisor.
    case 'confirmIdCheck':
      noArguments(args);
      return () => core.confirmIdCheck();
    case 'denyIdCheck':
      noArguments(args);
      return () => core.denyIdCheck();
    case 'overrideIdCheck':
      noArguments(args);
      return () => core.overrideIdCheck();
    // docs/kiosk.md "Party tickets": how many of the waiting party come in now (a whole number; the core checks the range).
    case 'chooseParty': {
      if (!Array.isArray(args) || args.length !== 1)
        throw new InvalidInput('Expected one argument: how many people of the party come in now.');
      const people = partyPeople(args[0]);
      return () => core.chooseParty(people);
    }
    case 'cancelParty':
      noArguments(args);
      return () => core.cancelParty();
    // docs/kiosk.md "Verdict details": a verdict named by its decided_at, an ISO time as the kiosk wrote it.
    case 'verdictDetails': {
      const decidedAt = onlyString(args, 'the verdict time');
      if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{5,15}(Z|[+-][0-9]{2}:[0-9]{2})$/.test(decidedAt))
        throw new InvalidInput('The verdict time must be an ISO 8601 date and time.');
      return () => core.verdictDetails(decidedAt);
    }
    // docs/kiosk.md "Handouts": a recent verdict by its decided_at, and an item name under the label rules.
    case 'giveHandout': {
      if (args.length !== 2 || typeof args[0] !== 'string' || typeof args[1] !== 'string')
        throw new InvalidInput('Expected two arguments: the verdict time and the item.');
      const [decidedAt, item] = args as [string, string];
      if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{5,15}(Z|[+-][0-9]{2}:[0-9]{2})$/.test(decidedAt))
        throw new InvalidInput('The verdict time must be an ISO 8601 date and time.');
      if (handoutItemProblem(item) !== null) throw new InvalidInput(`The item ${handoutItemProblem(item)}.`);
      return () => core.giveHandout(decidedAt, item);
    }
    case 'setLanguage': {
      if (args.length !== 2) throw new InvalidInput('Expected two arguments: the primary language and the secondary one (or null).');
      const primary = languageCode(args[0], 'The primary language');
      const secondary = args[1] === null ? null : languageCode(args[1], 'The secondary language');
      return () => core.setLanguage(primary, secondary);
    }
    case 'leaveKioskMode':
      noArguments(args);
      return () => core.leaveKioskMode();
    case 'setDirection': {
      if (args.length !== 1 || (args[0] !== 'entry' && args[0] !== 'exit')) {
        throw new InvalidInput('Expected exactly one argument: the direction, entry or exit.');
      }
      const direction: GateDirection = args[0];
      return () => core.setDirection(direction);
    }
    case 'configureLanes': {
      const request = lanesRequest(args);
      return () => core.configureLanes(request);
    }
    case 'annul': {
      if (args.length !== 2) throw new InvalidInput('Expected two arguments: the ticket ID and the reason.');
      const tid = ticketId(args[0]);
      const reason = annulReason(args[1]);
      return () => core.annul(tid, reason);
    }
  }
}

/** docs/kiosk.md "Several scanners": map 2 to 4 lanes (a label of 1 to 40 characters, a direction or null), cancel, or clear. */
function lanesRequest(args: unknown[]): LanesRequest {
  const request = args[0];
  if (args.length !== 1 || typeof request !== 'object' || request === null)
    throw new InvalidInput('Expected exactly one argument: the lanes request.');
  const action = (request as { action?: unknown }).action;
  if (action === 'cancel' || action === 'clear') return { action };
  if (action !== 'map') throw new InvalidInput('The lanes request action must be map, cancel or clear.');
  const lanes = (request as { lanes?: unknown }).lanes;
  if (!Array.isArray(lanes) || lanes.length < 2 || lanes.length > 4) throw new InvalidInput('Map 2 to 4 lanes.');
  return {
    action,
    lanes: lanes.map((lane: unknown) => {
      const { label, direction } = (typeof lane === 'object' && lane !== null ? lane : {}) as { label?: unknown; direction?: unknown };
      if (typeof label !== 'string' || label.trim().length === 0 || label.trim().length > 40 || UNSAFE_TEXT.test(label)) {
        throw new InvalidInput('A lane label must have 1 to 40 characters, without control characters.');
      }
      if (direction !== null && direction !== 'entry' && direction !== 'exit') {
        throw new InvalidInput('A lane direction must be entry, exit or null.');
      }
      return { label: label.trim(), direction };
    }),
  };
}

/** A ticket ID as the protocol has them (docs/protocol.md "Identifiers"): short, URL-safe. */
/** How many people of a party ticket (docs/kiosk.md "Party tickets"): a whole number 1 to MAX_PARTY. */
function partyPeople(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_PARTY)
    throw new InvalidInput(`Expected how many people of the party come in now: a whole number 1 to ${MAX_PARTY}.`);
  return value;
}

function ticketId(value: unknown): string {
  if (typeof value !== 'string' || !/^[0-9A-Za-z_-]{1,128}$/.test(value)) {
    throw new InvalidInput('The ticket ID must be 1 to 128 letters, digits, - or _.');
  }
  return value;
}

/** docs/protocol.md "Door operations": a reason of 1 to 200 characters, printable text (it goes to the issuer's audit log). */
function annulReason(value: unknown): string {
  if (typeof value !== 'string') throw new InvalidInput('The reason must be a string.');
  const reason = value.trim();
  if (reason.length === 0 || reason.length > MAX_REASON_LENGTH) {
    throw new InvalidInput(`The reason must have 1 to ${MAX_REASON_LENGTH} characters.`);
  }
  if (UNSAFE_TEXT.test(reason)) throw new InvalidInput('The reason must not contain control characters.');
  return reason;
}

const LANGUAGE_CODES: readonly LanguageCode[] = ['en', 'de', 'fr', 'es'];

function languageCode(value: unknown, what: string): LanguageCode {
  if (typeof value !== 'string' || !(LANGUAGE_CODES as readonly string[]).includes(value)) {
    throw new InvalidInput(`${what} must be one of ${LANGUAGE_CODES.join(', ')}.`);
  }
  return value as LanguageCode;
}

/** A staff PIN: 4 to 8 digits. The message never repeats what was sent. */
function staffPin(args: readonly unknown[]): string {
  if (args.length !== 1) throw new InvalidInput('Expected exactly one argument: the staff PIN.');
  const pin = args[0];
  if (typeof pin !== 'string' || !/^[0-9]{4,8}$/.test(pin)) throw new InvalidInput('The staff PIN must be 4 to 8 digits.');
  return pin;
}

/** A crew member's PIN request: a staff id (1 to 80 letters, digits, . _ -), a name (1 to 80 characters of text), a staff role. */
function staffPersonRequest(value: unknown): StaffPersonRequest {
  const { staff_id, name, role } = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof staff_id !== 'string' || !/^[0-9A-Za-z_.-]{1,80}$/.test(staff_id))
    throw new InvalidInput('The staff id must be 1 to 80 letters, digits, . _ or -.');
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 80 || UNSAFE_TEXT.test(name))
    throw new InvalidInput('The name must have 1 to 80 characters, without control characters.');
  if (!isStaffRole(role)) throw new InvalidInput('The role must be steward, supervisor or technician.');
  return { staff_id, name: name.trim(), role };
}

function onlyString(args: readonly unknown[], what: string): string {
  if (args.length !== 1) throw new InvalidInput(`Expected exactly one argument: ${what}.`);
  return stringArgument(args[0], what);
}

function stringArgument(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new InvalidInput(`${capitalize(what)} must be a string.`);
  if (value.length === 0) throw new InvalidInput(`${capitalize(what)} is empty.`);
  if (value.length > MAX_INPUT_LENGTH) throw new InvalidInput(`${capitalize(what)} is longer than ${MAX_INPUT_LENGTH} characters.`);
  return value;
}

const WEDGE_TERMINATORS: ReadonlySet<string> = new Set(['cr', 'lf', 'crlf', 'tab', 'pause']);
const MAX_FRAMING_KEYS = 8;
const MAX_KEY_NAME_LENGTH = 32;
const MAX_READ_DURATION_MS = 600_000;

/**
 * How the page's wedge read a scan: only the fields and ranges it can honestly
 * have. It ends up on screen and in the log, so key names are short printable text.
 */
function readDetails(value: unknown): ReadDetails {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidInput('The read details must be an object.');
  const fields = value as Record<string, unknown>;
  const allowed = ['terminator', 'prefixKeys', 'suffixKeys', 'units', 'durationMs', 'foreignLayout'];
  const unknown = Object.keys(fields).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw new InvalidInput('The read details have an unknown field.');
  const { terminator, units, durationMs } = fields;
  if (typeof terminator !== 'string' || !WEDGE_TERMINATORS.has(terminator))
    throw new InvalidInput('The read terminator must be one of cr, lf, crlf, tab, pause.');
  if (!Number.isInteger(units) || (units as number) < 0 || (units as number) > MAX_INPUT_LENGTH)
    throw new InvalidInput(`The read's key count must be a whole number from 0 to ${MAX_INPUT_LENGTH}.`);
  if (typeof durationMs !== 'number' || !Number.isFinite(durationMs) || durationMs < 0 || durationMs > MAX_READ_DURATION_MS) {
    throw new InvalidInput(`The read's duration must be a number of milliseconds from 0 to ${MAX_READ_DURATION_MS}.`);
  }
  const { foreignLayout } = fields;
  if (foreignLayout !== undefined && !(FOREIGN_LAYOUTS as readonly unknown[]).includes(foreignLayout)) {
    throw new InvalidInput(`The read's keyboard layout must be one of ${FOREIGN_LAYOUTS.join(', ')}.`);
  }
  return {
    terminator: terminator as ReadDetails['terminator'],
    prefixKeys: keyNames(fields['prefixKeys']),
    suffixKeys: keyNames(fields['suffixKeys']),
    units: units as number,
    durationMs,
    ...(foreignLayout === undefined ? {} : { foreignLayout: foreignLayout as string }),
  };
}

function keyNames(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_FRAMING_KEYS)
    throw new InvalidInput(`Prefix and suffix keys must be a list of at most ${MAX_FRAMING_KEYS} names.`);
  return value.map((name) => {
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_KEY_NAME_LENGTH || UNSAFE_TEXT.test(name)) {
      throw new InvalidInput(`A key name must be 1 to ${MAX_KEY_NAME_LENGTH} printable characters.`);
    }
    return name;
  });
}

/** A scanner name goes to the issuer and onto screens: printable text only. */
function scannerName(value: string): string {
  const name = value.trim();
  if (name.length === 0 || name.length > MAX_SCANNER_NAME_LENGTH) {
    throw new InvalidInput(`The scanner name must have 1 to ${MAX_SCANNER_NAME_LENGTH} characters.`);
  }
  if (UNSAFE_TEXT.test(name)) {
    throw new InvalidInput('The scanner name must not contain control characters.');
  }
  return name;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The answer to a caller that is not the kiosk's own page; the hosts check that before handling. */
export function forbiddenAnswer(): { ok: false; error: AnswerError } {
  return failure('forbidden', "Only the kiosk's own page may operate the kiosk.");
}
