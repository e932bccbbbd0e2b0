/**
 * The scanner calibration code (our addition, docs/protocol.md "Scanner
 * calibration code"; not part of the ticket protocol, never sent to the issuer).
 *
 * A venue's IT person scans it once on a new kiosk. It holds every character
 * a ticket or setup code can contain (base64url, RFC 4648 §5, and the `.`
 * separator), once each and in a known order, after a recognisable prefix.
 * Because the content is known, what arrives tells how it travelled: the
 * input path, the scanner's prefix and suffix, its speed, and any keyboard
 * layout that turned one character into another on the way.
 *
 * Its prefix characters (t, c, a, l, 1, .) appear again in the alphabet: a
 * code whose copies of one character arrive alike is this code, mangled or
 * not; random text of this length almost never is.
 */

export const CALIBRATION_PREFIX = 'tcal1.';

/** Every character of `tkt1.` and `tsetup1.` codes: base64url without padding, then the separator. */
export const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';

/** What the calibration QR code holds, exactly. */
export const CALIBRATION_CODE = CALIBRATION_PREFIX + CODE_ALPHABET;
