/**
 * The call envelope both hosts answer with, shared by the two call tables
 * (kiosk-calls.ts for the kiosk, onsite-issuer-calls.ts for the on-site
 * issuer): the input-error type their validators throw, and one way of turning a validated call into a plain JSON
 * answer, so both boundaries behave the same (never an Error object across,
 * never a secret, unexpected failures as a fixed message).
 */

/** Thrown by validators while binding a call; becomes an `invalid_input` answer with its message. */
export class InvalidInput extends Error {}

export function noArguments(args: readonly unknown[]): void {
  if (args.length !== 0) throw new InvalidInput('This call takes no arguments.');
}

/** C0 and C1 controls (newlines, escapes) and bidi overrides could forge lines in logs or reorder text on screen. */
export const UNSAFE_TEXT = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

export type Failure<C extends string> = { ok: false; error: { code: C; message: string } };

export function failure<C extends string>(code: C, message: string): Failure<C> {
  return { ok: false, error: { code, message } };
}

export interface CallPolicy<C extends string> {
  /** The call's own, expected errors as answers (messages written for people, with no secret); null for anything else. */
  expectedFailure(error: unknown): Failure<C> | null;
  /** Anything unexpected, for the host's log only. */
  onInternalError(error: unknown): void;
  /** What the caller is told instead. */
  internalErrorMessage: string;
}

/**
 * Binds a call (the validators run and may throw InvalidInput), runs it, and
 * answers. Never rejects for anything the call does.
 */
export async function answerCall<C extends string>(
  bind: () => () => Promise<unknown>,
  policy: CallPolicy<C>,
): Promise<{ ok: true; value: unknown } | Failure<C | 'invalid_input' | 'internal_error'>> {
  let call: () => Promise<unknown>;
  try {
    call = bind();
  } catch (error) {
    if (error instanceof InvalidInput) return failure('invalid_input', error.message);
    throw error;
  }
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    const expected = policy.expectedFailure(error);
    if (expected !== null) return expected;
    policy.onInternalError(error);
    return failure('internal_error', policy.internalErrorMessage);
  }
}
