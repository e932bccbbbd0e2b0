/** The dashboard's on-screen QR size (dashboard/qr-size.ts): a whole number of device pixels per module, as large as fits. */
import { describe, expect, test } from 'vitest';
import { snapToDevicePixel, wholePixelQrSize } from '../../../dashboard/qr-size.js';

describe('wholePixelQrSize', () => {
  test.each([
    // room (CSS px), modules, device pixel ratio → side (CSS px)
    [800, 85, 1, 765], // 9 px per module; 800 would be 9.41
    [800, 77, 1, 770],
    [800, 85, 2, 765], // 18 device px per module = 1530 device px
    [620, 93, 1.25, 595.2], // 8 device px per module = 744 device px
    [50, 93, 1, 93], // never below one pixel per module, even when it does not fit
  ])('%d px for %d modules at ×%d → %d px', (room, modules, ratio, side) => {
    expect(wholePixelQrSize(room, modules, ratio)).toBeCloseTo(side, 9);
    const devicePixels = side * ratio;
    expect(Math.round(devicePixels) % modules).toBe(0);
  });

  test('the largest size that fits: one more device pixel per module would not', () => {
    for (const [room, modules, ratio] of [
      [800, 85, 1],
      [611, 93, 1.5],
      [333, 41, 3],
    ] as const) {
      const perModule = (wholePixelQrSize(room, modules, ratio) * ratio) / modules;
      expect(Number.isInteger(Math.round(perModule * 1e9) / 1e9)).toBe(true);
      expect((perModule + 1) * modules).toBeGreaterThan(room * ratio);
      expect(perModule * modules).toBeLessThanOrEqual(room * ratio);
    }
  });

  test('a missing or odd device pixel ratio counts as 1', () => {
    expect(wholePixelQrSize(800, 85, 0)).toBe(765);
    expect(wholePixelQrSize(800, 85, Number.NaN)).toBe(765);
  });
});

describe('snapToDevicePixel', () => {
  test.each([
    [150, 1, 0],
    [150.5, 1, 0.5], // rounds half up: moved to 151
    [150.25, 1, -0.25],
    [150.25, 2, 0.25], // 300.5 device px → 301
    [99.6, 1.25, 0.4], // 124.5 device px → 125 = 100 CSS px
  ])('%d at ×%d moves by %d', (position, ratio, offset) => {
    const moved = snapToDevicePixel(position, ratio);
    expect(moved).toBeCloseTo(offset, 9);
    const device = (position + moved) * ratio;
    expect(Math.abs(device - Math.round(device))).toBeLessThan(1e-9);
  });
});
