/**
 * The size to show a QR code at on screen: the largest whole number of device
 * pixels per module that fits the room given (docs/issuer.md "QR codes"). At
 * any other size the browser draws some modules a pixel wider than others,
 * and decoders such as zxing-cpp (in many door scanners and phones) misread
 * the code. Pure arithmetic, so it is tested without a browser.
 */

/**
 * @param room the space for the code, in CSS pixels (the smaller of width and height)
 * @param modules the code's side in modules, quiet zone included
 * @param devicePixelRatio device pixels per CSS pixel (1, 1.25, 2 …)
 * @returns the side to give the image, in CSS pixels (a whole number of device pixels)
 */
export function wholePixelQrSize(room: number, modules: number, devicePixelRatio: number): number {
  const ratio = devicePixelRatio > 0 && Number.isFinite(devicePixelRatio) ? devicePixelRatio : 1;
  const perModule = Math.max(1, Math.floor((room * ratio) / modules));
  return (perModule * modules) / ratio;
}

/**
 * How far to move an image whose edge is at `position` (CSS pixels) so that it
 * starts on a device pixel: a code centred at x.5 is otherwise resampled, or
 * snapped by the browser one way or the other.
 */
export function snapToDevicePixel(position: number, devicePixelRatio: number): number {
  const ratio = devicePixelRatio > 0 && Number.isFinite(devicePixelRatio) ? devicePixelRatio : 1;
  return (Math.round(position * ratio) - position * ratio) / ratio;
}
