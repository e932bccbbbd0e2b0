/**
 * Reads one JSON object piece by piece, holding one piece at a time: each
 * top-level member, and each element of a top-level array on its own, so an
 * export file of any size (docs/issuer.md "Moving an issuer to the venue and
 * back") is read in flat memory. It relies on JSON alone, not on the line
 * layout `export` writes: a small scanner follows strings (and their escapes)
 * and the nesting depth to find where each piece ends, and JSON.parse reads
 * the piece. Text arrives in chunks of any size, split anywhere.
 */
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

export type JsonPiece =
  /** A top-level member that is not an array. */
  | { kind: 'member'; name: string; value: unknown }
  /** A top-level array begins; its elements follow, then its 'array-end'. */
  | { kind: 'array'; name: string }
  | { kind: 'element'; name: string; index: number; value: unknown }
  | { kind: 'array-end'; name: string; length: number };

/** The text is not one complete JSON object; the message says where and why. */
export class JsonStreamError extends Error {}

/** Nesting a piece may have: an export's rows are flat objects, its other members a few levels at most. */
export const MAX_PIECE_DEPTH = 32;

/** Bytes read from the file at once: small, so few parsed rows are alive at once (they are young garbage, cheap to collect). */
export const READ_BLOCK = 1 << 16;

/**
 * The pieces of the JSON object in `file`, read `blockSize` bytes at a time. `onBytes` sees every byte as read
 * (to hash the file). Throws JsonStreamError for text that is not one JSON object; errors of the file system as they are.
 */
export function* readJsonPieces(file: string, onBytes: (bytes: Buffer) => void = () => {}, blockSize = READ_BLOCK): Generator<JsonPiece> {
  const fd = fs.openSync(file, 'r');
  try {
    // Decodes UTF-8 across block boundaries: a character split between two blocks is held until it is whole.
    const decoder = new StringDecoder('utf8');
    const scanner = new JsonScanner();
    const block = Buffer.alloc(blockSize);
    for (;;) {
      const read = fs.readSync(fd, block, 0, blockSize, null);
      if (read === 0) break;
      onBytes(block.subarray(0, read));
      yield* scanner.push(decoder.write(block.subarray(0, read)));
    }
    yield* scanner.push(decoder.end());
    scanner.end();
  } finally {
    fs.closeSync(fd);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Whether the quote at `at` follows an odd number of backslashes (the piece holds all of them: it starts before). */
function isEscaped(text: string, at: number, pieceStart: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i > pieceStart && text.charCodeAt(i) === BACKSLASH; i--) backslashes++;
  return backslashes % 2 === 1;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** What a JSON value can start with: a string, object, array, number, true, false or null. */
const isValueStart = (c: number): boolean =>
  c === QUOTE || c === OPEN_BRACE || c === OPEN_BRACKET || c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e;

/** Where the scanner is in the top-level object (JSON's grammar, one level deep). */
type State =
  | 'start' // before the opening brace
  | 'first-name' // after it: a member name or the closing brace
  | 'name' // after a comma: a member name
  | 'colon'
  | 'value'
  | 'after-member' // a comma or the closing brace
  | 'first-element' // after '[': an element or ']'
  | 'element' // after a comma in an array
  | 'after-element' // a comma or ']'
  | 'done'
  // Cutting out a piece of text (scanValue), then what it is:
  | 'name-text'
  | 'value-text'
  | 'element-text';

/**
 * The scanner behind readJsonPieces: push() text in chunks of any size, then end(). Pure (no I/O), so it is
 * tested with chunks split at every place.
 */
export class JsonScanner {
  /** Text not consumed yet: from the start of the piece being cut out, or from the next character to read. */
  private text = '';
  private pos = 0;
  /** Characters dropped before `text`, for positions in messages. */
  private dropped = 0;
  private state: State = 'start';
  private name = '';
  private index = 0;
  // The piece being cut out: where it starts in `text`, its nesting depth, and whether the scan is in a string.
  private pieceStart = -1;
  private depth = 0;
  private inString = false;

  /** The pieces completed by this chunk. */
  push(chunk: string): JsonPiece[] {
    const keep = this.pieceStart >= 0 ? this.pieceStart : this.pos;
    this.text = this.text.slice(keep) + chunk;
    this.dropped += keep;
    this.pos -= keep;
    if (this.pieceStart >= 0) this.pieceStart -= keep;
    const pieces: JsonPiece[] = [];
    while (this.step(pieces));
    return pieces;
  }

  /** Throws when the text so far is not one whole JSON object. */
  end(): void {
    if (this.state === 'done') return;
    if (this.state === 'start') throw new JsonStreamError('the file is empty');
    const inside =
      this.state.endsWith('element') || this.state === 'element-text' ? ` inside "${this.name}" after ${this.index} element(s)` : '';
    throw new JsonStreamError(`the file ends before the object is closed${inside}`);
  }

  /** One step; false when more text is needed. */
  private step(pieces: JsonPiece[]): boolean {
    if (this.state === 'name-text' || this.state === 'value-text' || this.state === 'element-text') return this.cutPiece(pieces);
    while (this.pos < this.text.length && isSpace(this.text.charCodeAt(this.pos))) this.pos++;
    if (this.pos >= this.text.length) return false;
    const c = this.text.charCodeAt(this.pos);
    switch (this.state) {
      case 'start':
        this.expect(c, OPEN_BRACE, 'the file does not start with "{"');
        this.state = 'first-name';
        return true;
      case 'first-name':
      case 'name':
        if (c === CLOSE_BRACE && this.state === 'first-name') return this.close();
        if (c !== QUOTE) throw this.unexpected('a member name');
        return this.startPiece('name-text');
      case 'colon':
        this.expect(c, COLON, `":" after "${this.name}"`);
        this.state = 'value';
        return true;
      case 'value':
        if (c === OPEN_BRACKET) {
          this.pos++;
          this.index = 0;
          this.state = 'first-element';
          pieces.push({ kind: 'array', name: this.name });
          return true;
        }
        if (!isValueStart(c)) throw this.unexpected(`the value of "${this.name}"`);
        return this.startPiece('value-text');
      case 'after-member':
        if (c === CLOSE_BRACE) return this.close();
        this.expect(c, COMMA, '"," or "}" after a member');
        this.state = 'name';
        return true;
      case 'first-element':
      case 'element':
        if (c === CLOSE_BRACKET && this.state === 'first-element') return this.closeArray(pieces);
        if (!isValueStart(c)) throw this.unexpected(`an element of "${this.name}"`);
        return this.startPiece('element-text');
      case 'after-element':
        if (c === CLOSE_BRACKET) return this.closeArray(pieces);
        this.expect(c, COMMA, `"," or "]" after ${this.name}[${this.index - 1}]`);
        this.state = 'element';
        return true;
      case 'done':
        throw this.unexpected('nothing after the closing "}"');
    }
  }

  private expect(c: number, wanted: number, what: string): void {
    if (c !== wanted) throw this.unexpected(what);
    this.pos++;
  }

  private unexpected(wanted: string): JsonStreamError {
    // One character, never more of the text: the file holds private keys, which no message may show.
    const found = JSON.stringify(this.text.charAt(this.pos));
    return new JsonStreamError(`expected ${wanted} at character ${this.dropped + this.pos}, found ${found}`);
  }

  private close(): boolean {
    this.pos++;
    this.state = 'done';
    return true;
  }

  private closeArray(pieces: JsonPiece[]): boolean {
    this.pos++;
    this.state = 'after-member';
    pieces.push({ kind: 'array-end', name: this.name, length: this.index });
    return true;
  }

  private startPiece(state: 'name-text' | 'value-text' | 'element-text'): boolean {
    this.state = state;
    this.pieceStart = this.pos;
    this.depth = 0;
    this.inString = false;
    return true;
  }

  /** Scans on to the end of the piece and hands it on; false when the piece goes on in the next chunk. */
  private cutPiece(pieces: JsonPiece[]): boolean {
    if (!this.scanToPieceEnd()) return false;
    const text = this.text.slice(this.pieceStart, this.pos);
    const where = this.where();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Not JSON.parse's message: it quotes the text around the error, which may be a private key.
      throw new JsonStreamError(`${where} at character ${this.dropped + this.pieceStart} is not valid JSON`);
    }
    this.pieceStart = -1;
    if (this.state === 'name-text') {
      this.name = value as string;
      this.state = 'colon';
    } else if (this.state === 'value-text') {
      pieces.push({ kind: 'member', name: this.name, value });
      this.state = 'after-member';
    } else {
      pieces.push({ kind: 'element', name: this.name, index: this.index++, value });
      this.state = 'after-element';
    }
    return true;
  }

  /** The piece being read, for messages. */
  private where(): string {
    return this.state === 'name-text' ? 'a member name' : this.state === 'value-text' ? `"${this.name}"` : `${this.name}[${this.index}]`;
  }

  /**
   * Moves `pos` to the end of the piece that starts at `pieceStart`: after the closing quote or bracket that
   * brings the depth back to 0 (strings, objects, arrays), or before the next delimiter (numbers, true, false,
   * null). Brackets inside strings do not count, nor quotes after a backslash. JSON.parse checks the rest.
   */
  private scanToPieceEnd(): boolean {
    const text = this.text;
    const length = text.length;
    let i = this.pos;
    const first = text.charCodeAt(this.pieceStart);
    if (first !== QUOTE && first !== OPEN_BRACE && first !== OPEN_BRACKET) {
      while (i < length) {
        const c = text.charCodeAt(i);
        if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
        i++;
      }
      this.pos = i;
      return i < length;
    }
    for (; i < length; i++) {
      if (this.inString) {
        // Most of a file is inside strings: jump to the next quote; it ends the string unless a backslash escapes it.
        i = text.indexOf('"', i);
        if (i === -1) {
          i = length;
          break;
        }
        if (isEscaped(text, i, this.pieceStart)) continue;
        this.inString = false;
        if (this.depth === 0) break;
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        // An export's rows are flat; a piece nested deeper is not an export, and JSON.parse would run out of stack.
        if (++this.depth > MAX_PIECE_DEPTH)
          throw new JsonStreamError(
            `${this.where()} at character ${this.dropped + this.pieceStart} is nested more than ${MAX_PIECE_DEPTH} levels deep`,
          );
      } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --this.depth === 0) break;
    }
    this.pos = i < length ? i + 1 : i;
    return i < length;
  }
}
