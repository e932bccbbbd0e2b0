/**
 * What every kiosk-vs-issuer test starts from: the real issuer on a loopback port and a harness of real
 * kiosk cores (their keys in the real keyring), fresh for each test and cleaned up after it, and the
 * kiosks' clock. Call it at the top of a test file; read its fields inside tests and hooks.
 */
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { KioskHarness, requireKeyring, testKeychain } from './kiosk.js';
import { RealIssuer, type RealIssuerOptions } from './real-issuer.js';

export interface Rig {
  issuer: RealIssuer;
  kiosks: KioskHarness;
  /**
   * How far the kiosks' clock (`clock`, for KioskCoreOptions.now) runs ahead: a test moves it on past the
   * time a verdict stays on screen, so that a rescan is a new scan, not the same read (docs/kiosk.md
   * "Double reads"). Back to 0 before each test.
   */
  skew: number;
  clock: () => number;
}

export function useIssuerAndKiosks(options: RealIssuerOptions = {}): Rig {
  const rig = { skew: 0, clock: () => Date.now() + rig.skew } as Rig;
  beforeAll(async () => {
    await requireKeyring(testKeychain('probe'));
  });
  beforeEach(async () => {
    rig.issuer = await (await RealIssuer.create(options)).start();
    rig.kiosks = new KioskHarness();
    rig.skew = 0;
  });
  afterEach(async () => {
    await rig.kiosks.cleanup();
    await rig.issuer.cleanup();
  });
  return rig;
}
