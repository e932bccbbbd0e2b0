/**
 * A set of strings that keeps 8 bytes per key: the first 64 bits of each
 * key's SHA-256, in one open-addressing table (a typed array, linear
 * probing). `import` checks and merges an export file of any size with these
 * instead of Set<string> (docs/issuer.md "Moving an issuer to the venue and
 * back", "Size"): a key costs 8 bytes in the table (13 to 27 with the free
 * slots that keep probes short) instead of some 100 bytes as a string in a Set.
 *
 * Two different keys share a fingerprint with a chance of about n² / 2^65
 * (n = 10 million keys: 3 in a million), and SHA-256 lets nobody make them
 * collide on purpose.
 */
import crypto from 'node:crypto';

const INITIAL_SLOTS = 1024;
/** The table doubles before more than this share of its slots is taken, so probes stay short. */
const MAX_LOAD = 0.6;

export class FingerprintSet {
  /** Two 32-bit words per slot; [0, 0] is an empty slot (a fingerprint of 0 is stored as [0, 1]). */
  private slots = new Uint32Array(INITIAL_SLOTS * 2);
  private count = 0;

  get size(): number {
    return this.count;
  }

  has(key: string): boolean {
    const [high, low] = fingerprint(key);
    return this.slots[this.find(high, low) * 2 + 1] !== 0;
  }

  /** Adds the key; false when it was already in the set. */
  add(key: string): boolean {
    const [high, low] = fingerprint(key);
    const slot = this.find(high, low);
    if (this.slots[slot * 2 + 1] !== 0) return false;
    this.slots[slot * 2] = high;
    this.slots[slot * 2 + 1] = low;
    if (++this.count > (this.slots.length / 2) * MAX_LOAD) this.grow();
    return true;
  }

  /** The slot holding this fingerprint, or the empty slot where it would go. */
  private find(high: number, low: number): number {
    const mask = this.slots.length / 2 - 1;
    for (let slot = high & mask; ; slot = (slot + 1) & mask) {
      const h = this.slots[slot * 2]!;
      const l = this.slots[slot * 2 + 1]!;
      if ((h === high && l === low) || l === 0) return slot;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) {
      if (old[i + 1] === 0) continue;
      const slot = this.find(old[i]!, old[i + 1]!);
      this.slots[slot * 2] = old[i]!;
      this.slots[slot * 2 + 1] = old[i + 1]!;
    }
  }
}

/** The key's first 64 bits of SHA-256, as two words; the low word is never 0 (0 marks an empty slot). */
function fingerprint(key: string): [number, number] {
  const digest = crypto.hash('sha256', key, 'buffer');
  return [digest.readUInt32LE(0), digest.readUInt32LE(4) || 1];
}
