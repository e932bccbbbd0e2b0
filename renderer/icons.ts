/** Verdict pictograms as inline SVG: thick strokes that read from two meters whatever fonts the kiosk has. */
const SVG_NS = 'http://www.w3.org/2000/svg';

const PATHS: Readonly<Record<'admit' | 'attention' | 'exit' | 'handout' | 'id' | 'party' | 'refuse', string>> = {
  /** PARTY (docs/kiosk.md "Party tickets"): three heads and shoulders, told apart from the verdicts by shape. */
  party: 'M 22 40 L 22 42 M 50 30 L 50 32 M 78 40 L 78 42 M 10 78 Q 22 56 34 78 M 36 74 Q 50 48 64 74 M 66 78 Q 78 56 90 78',
  /** CHECK ID (docs/kiosk.md "ID checks"): an ID card, a face and two lines of text, told apart from the verdicts by shape. */
  id: 'M 10 24 L 90 24 L 90 76 L 10 76 Z M 30 44 L 30 46 M 22 62 L 38 62 M 52 42 L 78 42 M 52 58 L 72 58',
  admit: 'M 18 52 L 40 74 L 82 26',
  /** ADMIT — ATTENTION (docs/kiosk.md "Attention notes"): an exclamation mark, told apart from ADMIT by shape. */
  attention: 'M 50 14 L 50 62 M 50 84 L 50 86',
  /** An arrow out through a door frame: EXIT, told apart from ADMIT and REFUSE by shape, not colour. */
  exit: 'M 40 18 L 18 18 L 18 82 L 40 82 M 38 50 L 86 50 M 66 30 L 86 50 L 66 70',
  refuse: 'M 24 24 L 76 76 M 76 24 L 24 76',
  /** HANDOUT (docs/kiosk.md "Handouts"): a parcel with its ribbon, told apart from the verdicts by shape. */
  handout: 'M 16 40 L 84 40 L 84 84 L 16 84 Z M 50 40 L 50 84 M 50 40 L 34 20 M 50 40 L 66 20',
};

/** `label` is the Unicode icon (✓/✗), kept as the accessible name so screen readers and text dumps still get it. */
export function verdictIcon(
  kind: 'admit' | 'attention' | 'exit' | 'handout' | 'id' | 'party' | 'refuse',
  label: string,
  className: string,
): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 100 100');
  svg.setAttribute('class', className);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('data-icon', label);
  const path = document.createElementNS(SVG_NS, 'path');
  path.setAttribute('d', PATHS[kind]);
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', 'currentColor');
  path.setAttribute('stroke-width', '16');
  path.setAttribute('stroke-linecap', 'round');
  path.setAttribute('stroke-linejoin', 'round');
  svg.append(path);
  return svg;
}
