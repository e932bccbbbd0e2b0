/** Why a scanned string is not a usable `tkt1.`/`tsetup1.` code. Stable codes, one per failure. */
export const QR_CODE_ERRORS = [
  'wrong_prefix',
  'wrong_segment_count',
  'bad_base64url',
  'bad_json',
  'not_an_object',
  'missing_field',
  'wrong_field_type',
  'bad_signature_length',
] as const;
export type QrCodeErrorCode = (typeof QR_CODE_ERRORS)[number];

export class QrCodeError extends Error {
  override readonly name = 'QrCodeError';
  constructor(
    readonly code: QrCodeErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}
