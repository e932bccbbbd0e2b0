/**
 * The checks of the texts a LAN peer says (docs/protocol.md "LAN messages between kiosks (project extension)"):
 * short, and by the issuer's label rules (protocol/labels.ts), so no control or direction character reaches a log
 * line or the screen. Pure; lan-wire.ts and lan-moves.ts read datagrams with them.
 */
import { labelCharacterProblem } from '../../../protocol/labels.js';

export const isShortString = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;
/** A text a peer says (event, scanner, gate, ticket id): short, and by the issuer's label rules. */
export const isLabel = (value: unknown, max: number): value is string => isShortString(value, max) && labelCharacterProblem(value) === null;
/** A gate as told: null (a kiosk without one) or a label. */
export const isGate = (value: unknown): value is string | null => value === null || isLabel(value, 64);
export const isIsoTime = (value: unknown): value is string => isShortString(value, 40) && !Number.isNaN(Date.parse(value));
