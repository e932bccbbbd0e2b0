/**
 * The shape of the kiosk's catalogues, apart from ./format.ts so that a translation (./de.ts …) can be
 * typed by it without importing the module that imports every translation (docs/architecture.md
 * "Tools that keep the layers": no import cycles).
 */
import type { en } from './en.js';
import type { TranslationOf } from './translate.js';

export type MessageKey = keyof typeof en;

/** The shape every translation has: the same keys as English, any wording. */
export type Catalogue = TranslationOf<typeof en>;
