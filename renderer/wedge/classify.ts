/**
 * What a finished keyboard-wedge scan is: a code to hand to the kiosk, a code
 * typed through the wrong keyboard layout, or something else. Pure.
 */
import { codeKindOf, payloadLooksLikeJson, type CodeKind } from './code-syntax.js';
import { FOREIGN_LAYOUTS, unmangleFromLayout, type ForeignLayout } from '../../protocol/keyboard-layouts.js';

export type ScannedText =
  | { kind: CodeKind; text: string }
  /** A code that arrived through a layout other than the scanner's US one: fix the settings, don't call the ticket invalid. */
  | { kind: 'layout_mismatch'; layout: ForeignLayout; text: string }
  /** Not a code's shape; the text still goes to the kiosk, which records the refusal (or finds a ticket ID in it). */
  | { kind: 'invalid'; text: string };

export function classifyScannedText(text: string): ScannedText {
  const kind = codeKindOf(text);
  if (kind && payloadLooksLikeJson(text)) return { kind, text };
  for (const layout of FOREIGN_LAYOUTS) {
    const asTyped = unmangleFromLayout(text, layout);
    if (asTyped !== null && asTyped !== text && codeKindOf(asTyped) && payloadLooksLikeJson(asTyped)) {
      return { kind: 'layout_mismatch', layout, text };
    }
  }
  // Right characters, odd payload start: let the kiosk decide; it will explain what is wrong.
  if (kind) return { kind, text };
  return { kind: 'invalid', text };
}
