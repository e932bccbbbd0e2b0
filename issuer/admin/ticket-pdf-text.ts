/**
 * How a ticket's text lines are laid out (docs/issuer.md "Tickets you can send"): pure decisions, no PDF.
 *
 * - Words are placed one by one, in visual order, with the gap between them made by us. pdfkit hands a
 *   right-to-left string to fontkit, which reverses its glyphs but loses the space between the words
 *   ("محمد علي" came out as one word), and it never reorders a right-to-left stretch inside a
 *   left-to-right line. So each word is drawn alone (one script, shaped and reversed by fontkit as
 *   before) and the words are ordered here: a line whose first strong letter is right-to-left reads from
 *   the right; in a left-to-right line each stretch of right-to-left words is reversed.
 * - A long text wraps at spaces (a word wider than the line is cut between characters); when it would
 *   need more than `maxLines` lines it is shrunk, down to a floor, and only then cut, with "…" at the end.
 *   The cut line then stands for the rest of the text (`rest`): the PDF gives it that text as its
 *   /ActualText, so the text layer (copy, search, pdftotext) has the whole text while the page shows "…".
 */

/** Hebrew, Arabic, Syriac, Thaana, NKo … and their presentation forms. */
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;
const STRONG = /[\p{L}]/u;
export const ELLIPSIS = '…';

/** The direction of a word or line: that of its first strong letter; null when it has none (digits, signs). */
export function directionOf(text: string): 'ltr' | 'rtl' | null {
  for (const char of text) {
    if (RTL.test(char)) return 'rtl';
    if (STRONG.test(char)) return 'ltr';
  }
  return null;
}

/** The words of one line in the order they are drawn, left to right. */
export function visualOrder(words: readonly string[]): string[] {
  const base = directionOf(words.join(' ')) ?? 'ltr';
  const dirs = words.map((word) => directionOf(word) ?? base);
  const out: string[] = [];
  let i = 0;
  while (i < words.length) {
    let j = i;
    while (j < words.length && dirs[j] === dirs[i]) j++;
    const stretch = words.slice(i, j);
    out.push(...(dirs[i] === 'rtl' ? stretch.reverse() : stretch));
    i = j;
  }
  // A right-to-left line starts at the right: its stretches come in the opposite order too.
  if (base === 'rtl') {
    const stretches: string[][] = [];
    let k = 0;
    while (k < words.length) {
      let j = k;
      while (j < words.length && dirs[j] === dirs[k]) j++;
      stretches.push(out.slice(k, j));
      k = j;
    }
    return stretches.reverse().flat();
  }
  return out;
}

export interface Wrapped {
  /** Each line's words in logical (reading) order. */
  lines: string[][];
  /** True when the text did not fit in the lines allowed and was cut (the last line ends with "…"). */
  cut: boolean;
  /**
   * When cut: the text the last line stands for, from its first word to the end of the text (spaces as
   * one), so the lines before it and this make the whole text. Absent when nothing was cut.
   */
  rest?: string;
}

/**
 * `text` broken into lines no wider than `maxWidth` (measured by `width`, which includes nothing but the
 * given string; `space` is the gap between words), at most `maxLines` of them.
 */
export function wrapWords(text: string, maxWidth: number, maxLines: number, width: (text: string) => number, space: number): Wrapped {
  const words = text.split(/\s+/u).filter((word) => word !== '');
  const pieces: string[] = [];
  /** Whether each piece starts a word (a space before it in the text) or goes on the word before it. */
  const startsWord: boolean[] = [];
  // A word wider than the line is cut between characters, so nothing runs off the page.
  for (const word of words) {
    if (width(word) <= maxWidth) {
      pieces.push(word);
      startsWord.push(true);
      continue;
    }
    let piece = '';
    let first = true;
    for (const char of word) {
      if (piece !== '' && width(piece + char) > maxWidth) {
        pieces.push(piece);
        startsWord.push(first);
        first = false;
        piece = '';
      }
      piece += char;
    }
    if (piece !== '') {
      pieces.push(piece);
      startsWord.push(first);
    }
  }
  const lines: string[][] = [];
  /** The index in `pieces` of each line's first piece. */
  const starts: number[] = [];
  let current: string[] = [];
  let used = 0;
  pieces.forEach((piece, index) => {
    const w = width(piece);
    if (current.length > 0 && used + space + w > maxWidth) {
      lines.push(current);
      current = [];
      used = 0;
    }
    if (current.length === 0) starts.push(index);
    used += (current.length > 0 ? space : 0) + w;
    current.push(piece);
  });
  if (current.length > 0) lines.push(current);
  if (lines.length <= maxLines) return { lines, cut: false };
  const rest = pieces
    .slice(starts[maxLines - 1])
    .map((piece, i) => (i > 0 && startsWord[starts[maxLines - 1]! + i] ? ` ${piece}` : piece))
    .join('');
  const kept = lines.slice(0, maxLines);
  const last = [...kept[maxLines - 1]!];
  const lineWidth = (ws: string[]): number => ws.reduce((sum, w, i) => sum + width(w) + (i > 0 ? space : 0), 0);
  // Room for the mark: drop characters from the end of the last line until "…" fits.
  for (;;) {
    const tail = last.at(-1)!;
    const withMark = [...last.slice(0, -1), tail + ELLIPSIS];
    if (lineWidth(withMark) <= maxWidth || (last.length === 1 && [...tail].length <= 1)) {
      kept[maxLines - 1] = withMark;
      break;
    }
    const chars = [...tail];
    if (chars.length <= 1) last.pop();
    else last[last.length - 1] = chars.slice(0, -1).join('');
  }
  return { lines: kept, cut: true, rest };
}
