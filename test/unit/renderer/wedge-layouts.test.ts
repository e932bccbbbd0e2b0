import { describe, expect, it } from 'vitest';
import { classifyScannedText } from '../../../renderer/wedge/classify.js';
import { codeKindOf, payloadLooksLikeJson } from '../../../renderer/wedge/code-syntax.js';
import { mangleForLayout, unmangleFromLayout } from '../../../protocol/keyboard-layouts.js';
import { SETUP_CODE, TICKET_CODES } from './fixtures.js';

describe('US scanner on a German (QWERTZ) computer', () => {
  it.each([
    ['y', 'z'],
    ['Z', 'Y'],
    ['-', 'ß'],
    ['_', '?'],
    ['.', '.'],
    ['1', '1'],
    ['@', '"'],
    ['a', 'a'],
  ])('the US key for %s types %s', (us, de) => {
    expect(mangleForLayout(us, 'de')).toBe(de);
  });

  it('tkt1. arrives unchanged, but every payload starts eyJ and arrives ezJ', () => {
    const mangled = mangleForLayout(TICKET_CODES[0]!, 'de');
    expect(mangled.startsWith('tkt1.ezJ')).toBe(true);
  });
});

describe('US scanner on a French (AZERTY) computer', () => {
  it.each([
    ['a', 'q'],
    ['q', 'a'],
    ['w', 'z'],
    ['z', 'w'],
    ['m', ','],
    ['M', '?'],
    ['1', '&'],
    ['2', 'é'],
    ['3', '"'],
    ['4', "'"],
    ['5', '('],
    ['6', '-'],
    ['7', 'è'],
    ['8', '_'],
    ['9', 'ç'],
    ['0', 'à'],
    ['-', ')'],
    ['_', '°'],
    ['.', ':'],
    ['A', 'Q'],
    ['e', 'e'],
  ])('the US key for %s types %s', (us, fr) => {
    expect(mangleForLayout(us, 'fr')).toBe(fr);
  });

  it('tkt1. arrives as tkt&: and tsetup1. as tsetup&:', () => {
    expect(mangleForLayout('tkt1.', 'fr')).toBe('tkt&:');
    expect(mangleForLayout(TICKET_CODES[0]!, 'fr').startsWith('tkt&:eyJ')).toBe(true);
    expect(mangleForLayout(SETUP_CODE, 'fr').startsWith('tsetup&:eyJ')).toBe(true);
  });
});

describe('layout tables', () => {
  it.each(['de', 'fr'] as const)('%s: undoing the layout gives back every real code', (layout) => {
    for (const code of [...TICKET_CODES, SETUP_CODE]) {
      expect(unmangleFromLayout(mangleForLayout(code, layout), layout)).toBe(code);
    }
  });

  it('characters no US scanner key can produce on that layout cannot be undone', () => {
    expect(unmangleFromLayout('tkt1.ezJ€', 'de')).toBeNull();
    expect(unmangleFromLayout('tkt&:eyJ ', 'fr')).toBeNull();
  });
});

describe('classifying a finished scan', () => {
  it('real codes pass as themselves', () => {
    for (const code of TICKET_CODES) expect(classifyScannedText(code)).toEqual({ kind: 'ticket', text: code });
    expect(classifyScannedText(SETUP_CODE)).toEqual({ kind: 'setup', text: SETUP_CODE });
  });

  it('the fixtures exercise the characters that move (so the tests below mean something)', () => {
    const all = TICKET_CODES.join('') + SETUP_CODE;
    for (const c of ['-', '_', 'y', 'z', 'Y', 'Z', 'a', 'q', 'w', 'm', 'M', '0', '8']) expect(all).toContain(c);
  });

  it.each(['de', 'fr'] as const)('codes typed through a %s layout are a layout mismatch, not invalid', (layout) => {
    for (const code of [...TICKET_CODES, SETUP_CODE]) {
      expect(classifyScannedText(mangleForLayout(code, layout))).toEqual({
        kind: 'layout_mismatch',
        layout,
        text: mangleForLayout(code, layout),
      });
    }
  });

  it('a German-mangled code without ß or ? still gives itself away by ezJ', () => {
    const code = TICKET_CODES.find((c) => !/[-_]/.test(c)) ?? 'tkt1.eyJ2IjoxfQ.c2ln';
    const mangled = mangleForLayout(code, 'de');
    expect(codeKindOf(mangled)).toBe('ticket');
    expect(payloadLooksLikeJson(mangled)).toBe(false);
    expect(classifyScannedText(mangled)).toEqual({ kind: 'layout_mismatch', layout: 'de', text: mangled });
  });

  it.each([
    ['empty', ''],
    ['a URL', 'https://example.org/ticket/123'],
    ['an EAN barcode', '4006381333931'],
    ['words', 'hello world'],
    ['another prefix', 'tkt2.eyJ2IjoyfQ.c2ln'.replace('tkt2', 'tkx1')],
    ['missing signature', 'tkt1.eyJ2IjoxfQ'],
    ['padding', 'tkt1.eyJ2IjoxfQ==.c2ln'],
    ['standard base64', 'tkt1.eyJ2+IjoxfQ.c2l/n'],
    ['random AZERTY-looking noise', 'tkt&:é"(-è_ç'],
    ['human typing with a typo', 'tkt1,eyJ2IjoxfQ.c2ln'],
  ])('%s is invalid', (_label, text) => {
    expect(classifyScannedText(text)).toEqual({ kind: 'invalid', text });
  });

  it('right characters with an odd payload start go to the kiosk, which explains the refusal', () => {
    expect(classifyScannedText('tkt1.abcd.efgh')).toEqual({ kind: 'ticket', text: 'tkt1.abcd.efgh' });
  });
});
