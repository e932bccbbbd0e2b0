/** Which screen to show. Pure, so the precedence is one readable list. */
import type { KioskState } from '../kiosk-bridge-types.js';

export type ShownScreen = 'starting' | 'setup' | 'ready' | 'verdict' | 'lookup' | 'lanes' | 'id_check' | 'party';

export interface ScreenInputs {
  state: KioskState | null;
  verdictShown: boolean;
  lookupOpen: boolean;
  /** Two or more lanes (docs/kiosk.md "Several scanners"): the split screen stands for Ready and Verdict. */
  lanes?: boolean;
}

export function chooseScreen({ state, verdictShown, lookupOpen, lanes = false }: ScreenInputs): ShownScreen {
  if (state === null) return 'starting';
  // The re-enroll question waits for an answer; nothing may cover it.
  if (state.re_enroll_pending) return 'setup';
  // docs/kiosk.md "ID checks": a scan waits for Confirm or Deny; the ID screen covers the door (every lane) until then.
  if (state.enrolled && state.id_check_prompt) return 'id_check';
  // docs/kiosk.md "Party tickets": a party's scan waits for how many come in; the party screen covers the door.
  if (state.enrolled && state.party_prompt) return 'party';
  if (lanes && state.enrolled && !lookupOpen) return 'lanes';
  if (verdictShown) return 'verdict';
  if (!state.enrolled) return 'setup';
  if (lookupOpen) return 'lookup';
  return 'ready';
}

/** How long a verdict stays before Ready returns (the next scan replaces it sooner). A refusal needs reading. */
export const VERDICT_SHOWN_MS = { admit: 3_000, exit: 3_000, refuse: 6_000, handout: 15_000 } as const;
/** docs/kiosk.md "Handouts": an ADMIT with items still to hand over stays while the steward taps them. */
export const HANDOUTS_SHOWN_MS = 15_000;
