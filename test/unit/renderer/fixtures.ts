/** Real codes for the renderer tests, signed like the issuer signs them, and keystroke recordings. */
import { signEd25519 } from '../../../protocol/ed25519.js';
import { encodeSetupCode } from '../../../protocol/setup-code.js';
import { encodeTicketCode } from '../../../protocol/ticket-code.js';
import type { TicketPayload } from '../../../protocol/types.js';
import type { Keystroke } from '../../../renderer/wedge/keystrokes.js';
import type { KioskState } from '../../../main/kiosk/kiosk-api.js';

const secret = new Uint8Array(32).map((_, i) => (i * 37 + 11) & 0xff);

function ticket(tid: string, holder: string, type: string): string {
  const payload: TicketPayload = {
    v: 1,
    iss: 'https://tickets.example.org',
    kid: '0a1b2c3d',
    tid,
    eid: '01HZX8K3Q5J9V2W7M4N6P8R0ST',
    ev: { name: 'Summer Night Open Air', date: '2026-07-18T19:30:00Z', venue: 'Stadtpark Hamburg' },
    tt: type,
    hn: holder,
    iat: 1_780_000_000,
    exp: 1_790_000_000,
  };
  return encodeTicketCode(payload, (message) => signEd25519(message, secret));
}

export const TICKET_CODES: readonly string[] = [
  ticket('01HZX9A1B2C3D4E5F6G7H8J9KM', 'Zoë Müller', 'VIP'),
  ticket('01HZX9QWAZMQWAZMQWAZMQWAZM', 'Quentin Azaïs', 'Standard'),
  ticket('01HZX9YYYYZZZZ0000111122223', 'Jürgen Weiß-Mayer', 'Stehplatz ~ Ermäßigt?'),
];

export const SETUP_CODE: string = encodeSetupCode({
  v: 1,
  iss: 'https://tickets.example.org',
  enroll_url: 'https://tickets.example.org/api/v1/scanners/enroll',
  token: 'q9Zm-W_aQ3yz_Mm-8xKp2LvT4nRj6sBd',
  eid: '01HZX8K3Q5J9V2W7M4N6P8R0ST',
  event_name: 'Summer Night Open Air',
  gate_id: 'B',
  expires_at: '2026-07-19T06:00:00Z',
});

/** How a wedge scanner types `text`: 4–9 ms apart (deterministic jitter), then the suffix key. */
export function scannerStrokes(text: string, start = 1000, suffix: 'Enter' | 'Tab' | null = 'Enter'): Keystroke[] {
  const strokes: Keystroke[] = [];
  let time = start;
  for (const [i, key] of [...text].entries()) {
    strokes.push({ key, time });
    time += 4 + ((i * 7) % 6);
  }
  if (suffix) strokes.push({ key: suffix, time });
  return strokes;
}

/** A person typing: 90–250 ms apart. */
export function humanStrokes(text: string, start = 1000, suffix: 'Enter' | null = 'Enter'): Keystroke[] {
  const strokes: Keystroke[] = [];
  let time = start;
  for (const [i, key] of [...text].entries()) {
    strokes.push({ key, time });
    time += 90 + ((i * 53) % 160);
  }
  if (suffix) strokes.push({ key: suffix, time });
  return strokes;
}

/** An enrolled, online kiosk at gate B, nothing scanned yet: the state the screens' tests start from. */
export const ENROLLED_STATE: KioskState = {
  enrolled: true,
  authorised: true,
  scanner: { id: 'S', name: 'Door 1' },
  issuer: { iss: 'https://tickets.example.org', name: 'Example' },
  event: { eid: 'EVT', name: 'Summer Night Open Air', date: '2026-07-18T19:30:00Z' },
  gate_id: 'B',
  api_key_id: 'k1',
  key_expires_at: '2026-07-19T12:00:00Z',
  connection: 'online',
  offline_policy: 'optimistic',
  pending_scans: 0,
  last_verdicts: [],
  double_admissions: [],
  re_enroll_pending: null,
  read_again: null,
  staff_code_ignored: null,
  calibration: null,
  calibration_to_confirm: null,
  hid_scanner: null,
  storage: null,
  staff: {
    pin_set: false,
    pin_needed: false,
    unlocked: true,
    unlocked_until: null,
    locked_until: null,
    attempts_left: 5,
    can_leave_kiosk_mode: false,
    role: 'technician',
    person: null,
    people: [],
  },
  language: { primary: 'en', secondary: null },
  direction: 'entry',
  door: null,
  offline_exposure: [],
};
