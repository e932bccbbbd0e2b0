/**
 * The character-level shape of the codes a door sees (docs/protocol.md "Codes
 * people scan"): `tkt1.<b64url>.<b64url>` and `tsetup1.<b64url>`, with
 * base64url = RFC 4648 §5 without padding. Only the shape: decoding and the
 * signature are the kiosk core's job. The prefixes are the protocol's own.
 */
import { SETUP_PREFIX } from '../../protocol/setup-code.js';
import { TICKET_PREFIX } from '../../protocol/ticket-code.js';

export type CodeKind = 'ticket' | 'setup';

const SEGMENT = '[A-Za-z0-9_-]+';
const TICKET_SHAPE = new RegExp(`^${escapeRegExp(TICKET_PREFIX)}${SEGMENT}\\.${SEGMENT}$`);
const SETUP_SHAPE = new RegExp(`^${escapeRegExp(SETUP_PREFIX)}${SEGMENT}$`);

/** Which code the text is shaped like, or null when it uses other characters or another layout. */
export function codeKindOf(text: string): CodeKind | null {
  if (TICKET_SHAPE.test(text)) return 'ticket';
  if (SETUP_SHAPE.test(text)) return 'setup';
  return null;
}

/**
 * True when the first segment can be base64url of a JSON object. The object's
 * `{` (0x7B) encodes as `e`; the next character carries the low two bits of
 * `{` and the high nibble of the next byte: `"` or space give `y`, tab/CR/LF
 * give `w`, `}` gives `3`. Anything else (for example `ez`, bytes 0x30–0x3F)
 * cannot start JSON: that is how a German layout's y↔z swap gives itself away.
 */
export function payloadLooksLikeJson(text: string): boolean {
  const start = text.indexOf('.') + 1;
  return /^e[wy3]/.test(text.slice(start, start + 2));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
