/**
 * readJsonPieces on real files (issuer/transfer/json-pieces.ts): read in blocks of any size, a character of
 * several UTF-8 bytes split between two blocks comes out whole, and every byte read is handed on (the
 * import hashes them to know the file did not change between its two passes).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JsonStreamError, readJsonPieces, type JsonPiece } from '../../../issuer/transfer/json-pieces.js';
import { tempDir } from '../../support/temp-dir.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

function writeFile(content: string): string {
  const { dir, cleanup } = tempDir('json-pieces-');
  cleanups.push(cleanup);
  const file = path.join(dir, 'export.json');
  fs.writeFileSync(file, content);
  return file;
}

/** Two-, three- and four-byte characters next to each other, so every block size splits some of them. */
const NAMES = ['Zoë', 'Łódź', '東京タワー', '😀🎫', 'ß"\\[{'];
const DOCUMENT = { format: 'ticket-issuer-export', tickets: NAMES.map((holder_name, i) => ({ tid: `t${i}`, holder_name })), sha256: 'x' };

describe('readJsonPieces', () => {
  it('reads the same pieces in blocks of any size, multi-byte characters split across blocks included', () => {
    const text = JSON.stringify(DOCUMENT, null, 1);
    const file = writeFile(text);
    const whole = [...readJsonPieces(file)];
    expect(
      whole.filter((piece) => piece.kind === 'element').map((piece) => (piece as { value: { holder_name: string } }).value.holder_name),
    ).toEqual(NAMES);
    for (const blockSize of [1, 2, 3, 5, 7, 16]) {
      const blocks: Buffer[] = [];
      const pieces: JsonPiece[] = [...readJsonPieces(file, (bytes) => blocks.push(Buffer.from(bytes)), blockSize)];
      expect(pieces).toEqual(whole);
      expect(Buffer.concat(blocks).equals(fs.readFileSync(file))).toBe(true);
    }
  });

  it('throws JsonStreamError for a truncated file or trailing text', () => {
    const text = JSON.stringify(DOCUMENT);
    const bytes = Buffer.from(text);
    // Cut inside a four-byte character: the decoder holds its first bytes, and the file ends.
    const cut = bytes.indexOf(Buffer.from('😀')) + 2;
    const truncated = writeFile('');
    fs.writeFileSync(truncated, bytes.subarray(0, cut));
    expect(() => [...readJsonPieces(truncated, undefined, 4)]).toThrow(JsonStreamError);
    expect(() => [...readJsonPieces(writeFile(`${text}garbage`), undefined, 4)]).toThrow(/nothing after the closing/);
    expect(() => [...readJsonPieces(path.join(path.dirname(truncated), 'missing.json'))]).toThrow(/ENOENT/);
  });

  it('hands on the bytes as read, so a reader can hash the file it read', () => {
    const file = writeFile(JSON.stringify(DOCUMENT));
    const hash = crypto.createHash('sha256');
    for (const piece of readJsonPieces(file, (bytes) => hash.update(bytes), 3)) expect(piece.kind).toBeTruthy();
    expect(hash.digest('hex')).toBe(crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
  });
});
