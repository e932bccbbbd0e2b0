/**
 * The admin CLI's failure catalogue. docs/protocol.md "The admin CLI": a failure exits non-zero with a one-line reason on stderr and,
 * with --json, `{"error": {"code", "message"}}` on stdout. The codes are
 * stable so scripts can branch on them; the messages say what to do next.
 */
export const ADMIN_ERROR_CODES = [
  'USAGE', // commander rejected the command line (unknown option, missing argument)
  'INVALID_ARGUMENT', // a flag value is out of range or malformed
  'INVALID_BASE_URL',
  'INVALID_DATE',
  'NOT_INITIALISED',
  'ALREADY_INITIALISED',
  'EVENT_NOT_FOUND',
  'TICKET_NOT_FOUND',
  'TOKEN_NOT_FOUND',
  'TOKEN_ALREADY_USED',
  'API_KEY_NOT_FOUND',
  'CSV_INVALID',
  'BACKUP_TARGET_EXISTS',
  'EXPORT_TARGET_EXISTS', // export --to names an existing file: an export never overwrites
  'IMPORT_FILE_INVALID', // not an export, truncated, damaged (checksum), or rows of the wrong shape
  'IMPORT_FILE_UNSUPPORTED_VERSION', // written by a newer ticket-issuer
  'IMPORT_ISSUER_MISMATCH', // an export of another issuer (other base URL, or no signing key in common)
  'IMPORT_CONFLICT', // the file contradicts this issuer's data (same ID, different ticket/key/token)
  'INTERNAL',
] as const;

export type AdminErrorCode = (typeof ADMIN_ERROR_CODES)[number];

export class AdminError extends Error {
  override readonly name = 'AdminError';
  constructor(
    readonly code: AdminErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Exit status: 2 for a command line commander could not parse, 1 for every other failure. */
export const exitCodeFor = (code: AdminErrorCode): number => (code === 'USAGE' ? 2 : 1);
