/**
 * The shape of the dashboard's catalogues, apart from ./format.ts so that a translation (./de.ts …) can
 * be typed by it without importing the module that imports every translation (docs/architecture.md
 * "Tools that keep the layers": no import cycles).
 */
import type { en } from './en.js';
import type { TranslationOf } from '../../renderer/messages/translate.js';

export type MessageKey = keyof typeof en;
export type Catalogue = TranslationOf<typeof en>;
