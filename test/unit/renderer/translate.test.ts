/** The generic catalogue helpers both pages' catalogues use (renderer/messages/translate.ts). */
import { describe, expect, it } from 'vitest';
import * as translate from '../../../renderer/messages/translate.js';

describe('translate.ts', () => {
  it('interpolates named placeholders, and leaves a missing one visible', () => {
    expect(translate.interpolate('Gate {gate} at {time}', { gate: 'B', time: '19:42' })).toBe('Gate B at 19:42');
    expect(translate.interpolate('Gate {gate}', {})).toBe('Gate {gate}');
  });

  it('inserts values as text, never interpolated again', () => {
    expect(translate.interpolate('Holder: {name}', { name: '{time} <b>' })).toBe('Holder: {time} <b>');
  });

  it('lists placeholders in order', () => {
    expect(translate.placeholdersOf('{a} and {b}, then {a}')).toEqual(['a', 'b', 'a']);
  });

  it('a translator reads its catalogue', () => {
    const catalogue = { hello: 'Hallo {name}', bye: 'Tschüss' } as const;
    const tr = translate.createTranslator<typeof catalogue>(catalogue);
    expect(tr('hello', { name: 'Ada' })).toBe('Hallo Ada');
    expect(tr('bye')).toBe('Tschüss');
  });

  it('matches preferred languages on their primary subtag, in order', () => {
    const available = ['en', 'de', 'fr', 'es'] as const;
    expect(translate.matchLanguage(['de-CH', 'fr'], available)).toBe('de');
    expect(translate.matchLanguage(['pt-BR', 'FR-ca'], available)).toBe('fr');
    expect(translate.matchLanguage(['es_AR'], available)).toBe('es');
    expect(translate.matchLanguage(['pt', 'ja'], available)).toBeNull();
  });
});
