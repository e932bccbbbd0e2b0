/** Which issued ticket each kiosk scans: the doors', the returning kiosks' queues (with their duplicates) and live scans. */
import type { Settings, Sizes } from './settings.js';

export interface Ticket {
  tid: string;
  qr: string;
}

export interface TicketPlan {
  /** Per door: its tickets for the soak and the drain. */
  doorTickets: Ticket[][];
  /** Per returning kiosk: the tickets it admits offline, shuffled. */
  queues: Ticket[][];
  /** Per returning kiosk: its live scans during the drain. */
  liveForReturning: Ticket[][];
}

/** A deterministic shuffle (mulberry32), so runs are comparable. */
function shuffle<T>(items: T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

export function planTickets(tickets: readonly Ticket[], { scanners, returning }: Settings, sizes: Sizes): TicketPlan {
  const { scansPerDoor, drainScansPerDoor, soakDuplicates, sharedEach, uniqueQueued } = sizes;
  let cursor = 0;
  const take = (n: number): Ticket[] => tickets.slice(cursor, (cursor += n));
  const doorTickets = Array.from({ length: scanners }, () => take(scansPerDoor + drainScansPerDoor));
  const sharedPools = Array.from({ length: returning }, () => take(sharedEach));
  const queues = Array.from({ length: returning }, (_, r) => {
    const own = take(uniqueQueued);
    // Tickets a door will check in online early in the soak (never a re-entry slot).
    const fromSoak = Array.from({ length: soakDuplicates }, (_, m) => {
      const n = r * soakDuplicates + m;
      return doorTickets[n % scanners]![Math.floor(n / scanners)]!;
    });
    const shared = returning >= 2 ? [...sharedPools[r]!, ...sharedPools[(r + 1) % returning]!] : [];
    return shuffle([...own, ...fromSoak, ...shared], 1000 + r);
  });
  const liveForReturning = Array.from({ length: returning }, () => take(drainScansPerDoor));
  return { doorTickets, queues, liveForReturning };
}
