/** Scanner input for the kiosk: HID-POS and keyboard-mode scanners over node-hid. */
export * from './scan-event.js';
export * from './hid-pos-decoder.js';
export * from './keyboard-decoder.js';
export * from './device-selection.js';
export * from './node-hid-boundary.js';
export * from './scanner-manager.js';
export * from './hid-pos-layouts.js';
export * from './hid-report-descriptor.js';
export * from './scanner-vendors.js';
