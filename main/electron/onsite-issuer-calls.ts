/**
 * The on-site issuer's calls (main/onsite-issuer) as plain functions of
 * (host, method, args) → answer, for ipcMain.handle on ISSUER_CHANNELS. The
 * calls and their answers are the page's bridge type, OnsiteIssuerApi in
 * renderer/onsite-issuer-bridge-types.ts (the preload satisfies the same type).
 * Electron-free, like kiosk-calls.ts, with the same rules: everything that
 * arrives is untrusted and checked for type, count and length before the
 * issuer sees it; every outcome is a plain JSON envelope
 * `{ok: true, value} | {ok: false, error: {code, message}}`; unexpected
 * failures become a fixed message and go to the host's log only.
 */
import type { OnsiteIssuerApi, OnsiteIssuerInitRequest } from '../../renderer/onsite-issuer-bridge-types.js';
import { MAX_LABEL_LENGTH, OnsiteIssuerError, type OnsiteIssuer, type OnsiteIssuerErrorCode } from '../onsite-issuer/onsite-issuer.js';
import type { KioskCall } from '../../protocol/access.js';
import type { StaffLocked } from '../kiosk/kiosk-api.js';
import { answerCall, failure, InvalidInput, noArguments, UNSAFE_TEXT } from '../host/call-envelope.js';
import { ISSUER_CHANNELS } from '../host/call-channels.js';

/** Each call's answer, as the page's bridge type says (renderer/onsite-issuer-bridge-types.ts): the issuer's results must fit it. */
type IssuerCallValue<M extends IssuerCallName> = Awaited<ReturnType<OnsiteIssuerApi[M]>>;

export type IssuerCallName = keyof typeof ISSUER_CHANNELS & keyof OnsiteIssuerApi;
export const ISSUER_CALL_NAMES = Object.keys(ISSUER_CHANNELS) as IssuerCallName[];

export type IssuerAnswerErrorCode =
  | 'unknown_method'
  | 'forbidden'
  | 'invalid_input'
  | OnsiteIssuerErrorCode
  /** openAdmin while the issuer is stopped. */
  | 'not_running'
  /** A staff-only call while staff functions are locked (docs/kiosk.md "Staff PIN"): it did not run. */
  | 'staff_locked'
  | 'internal_error';

export type IssuerAnswer<T> = { ok: true; value: T } | { ok: false; error: { code: IssuerAnswerErrorCode; message: string } };

export interface IssuerHost {
  issuer: Pick<OnsiteIssuer, 'status' | 'init' | 'start' | 'stop' | 'resetAdminToken'>;
  /** Shows the dashboard at `url`, trusting only the certificate with `fingerprint` (Electron: admin-window.ts). */
  openAdmin?: (target: { url: string; fingerprint: string }) => Promise<void>;
  /**
   * The kiosk's staff guard (KioskCore.requireStaff) for calls from the page:
   * each call is `onsiteIssuer.<method>` in the access table
   * (protocol/access.ts), where every call but `status` is staff only. Absent
   * for the desktop's own Issuer menu.
   */
  staff?: (call: KioskCall) => StaffLocked | null;
}

export interface IssuerHandleOptions {
  onInternalError?: (method: IssuerCallName, error: unknown) => void;
}

export const ISSUER_INTERNAL_ERROR_MESSAGE = 'The on-site issuer could not handle this request. The details are in the kiosk log.';
/** A URL longer than this is not a base URL anyone types. */
export const MAX_BASE_URL_LENGTH = 2048;

export function isIssuerCallName(name: string): name is IssuerCallName {
  return Object.hasOwn(ISSUER_CHANNELS, name);
}

/** Runs one call. Never rejects: every outcome is an answer. */
export async function handleIssuerCall(
  host: IssuerHost,
  method: string,
  args: unknown,
  options: IssuerHandleOptions = {},
): Promise<IssuerAnswer<unknown>> {
  if (!isIssuerCallName(method)) return failure('unknown_method', 'There is no such issuer call.');
  const locked = host.staff?.(`onsiteIssuer.${method}`) ?? null;
  if (locked) return failure('staff_locked', locked.message);
  return answerCall(() => boundCall(host, method, args), {
    // Its messages are written for the operator and hold no secret (paths, ports, addresses).
    expectedFailure: (error) =>
      error instanceof OnsiteIssuerError
        ? failure(error.code, error.message)
        : error instanceof NotRunning
          ? failure('not_running', error.message)
          : null,
    onInternalError: (error) => options.onInternalError?.(method, error),
    internalErrorMessage: ISSUER_INTERNAL_ERROR_MESSAGE,
  });
}

function boundCall(host: IssuerHost, method: IssuerCallName, args: unknown): () => Promise<unknown> {
  if (!Array.isArray(args)) throw new InvalidInput('The arguments must be a list.');
  switch (method) {
    case 'status':
      noArguments(args);
      return async (): Promise<IssuerCallValue<'status'>> => host.issuer.status();
    case 'init': {
      const request = initRequest(args);
      return async (): Promise<IssuerCallValue<'init'>> => host.issuer.init(request);
    }
    case 'start':
      noArguments(args);
      return (): Promise<IssuerCallValue<'start'>> => host.issuer.start();
    case 'stop':
      noArguments(args);
      return (): Promise<IssuerCallValue<'stop'>> => host.issuer.stop();
    case 'resetAdminToken':
      noArguments(args);
      return async (): Promise<IssuerCallValue<'resetAdminToken'>> => host.issuer.resetAdminToken();
    case 'openAdmin':
      noArguments(args);
      return async (): Promise<IssuerCallValue<'openAdmin'>> => {
        const status = await host.issuer.status();
        if (!status.running || status.adminUrl === null || status.fingerprint === null) {
          throw new NotRunning('The on-site issuer is not running: start it first.');
        }
        if (!host.openAdmin) throw new NotRunning('This host has no window for the admin dashboard: open it in a browser.');
        await host.openAdmin({ url: status.adminUrl, fingerprint: status.fingerprint });
        return { url: status.adminUrl };
      };
  }
}

class NotRunning extends Error {}

const INIT_FIELDS = new Set(['name', 'baseUrl', 'port']);

/** One plain object {name, baseUrl?, port?}; the issuer applies `ticket-issuer init`'s own rules after this. */
function initRequest(args: readonly unknown[]): OnsiteIssuerInitRequest {
  if (args.length !== 1) throw new InvalidInput('Expected exactly one argument: {name, baseUrl?, port?}.');
  const value = args[0];
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidInput('The request must be an object {name, baseUrl?, port?}.');
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) throw new InvalidInput('The request must be a plain object.');
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!INIT_FIELDS.has(key)) throw new InvalidInput(`Unknown field "${key.slice(0, 40)}": the request has name, baseUrl and port.`);
  }
  const request: OnsiteIssuerInitRequest = { name: text(fields['name'], 'The issuer name', MAX_LABEL_LENGTH * 4) };
  if (UNSAFE_TEXT.test(request.name)) {
    throw new InvalidInput('The issuer name must not contain control characters.');
  }
  if (fields['baseUrl'] !== undefined) request.baseUrl = text(fields['baseUrl'], 'The base URL', MAX_BASE_URL_LENGTH);
  if (fields['port'] !== undefined) {
    const port = fields['port'];
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
      throw new InvalidInput('The port must be a whole number from 1 to 65535.');
    request.port = port;
  }
  return request;
}

function text(value: unknown, what: string, maxLength: number): string {
  if (typeof value !== 'string') throw new InvalidInput(`${what} must be a string.`);
  if (value.trim().length === 0) throw new InvalidInput(`${what} is empty.`);
  if (value.length > maxLength) throw new InvalidInput(`${what} is longer than ${maxLength} characters.`);
  return value;
}

/** The answer to a caller that is not the kiosk's own page. */
export function issuerForbiddenAnswer(): IssuerAnswer<never> {
  return failure('forbidden', "Only the kiosk's own page may operate the on-site issuer.");
}
