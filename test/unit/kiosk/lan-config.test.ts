/**
 * LAN peers listed by hand (main/kiosk/sync/lan-config.ts; docs/kiosk.md "Kiosks on one LAN"): kiosk-config.json's
 * `lan.peers` and the web host's `--lan-peer HOST[:PORT]`.
 */
import { describe, expect, it } from 'vitest';
import { parseLanConfig, parsePeerAddress } from '../../../main/kiosk/sync/lan-config.js';

describe('a peer address', () => {
  it('is HOST or HOST:PORT, the port 47474 by default', () => {
    expect(parsePeerAddress('10.0.4.17')).toEqual({ address: '10.0.4.17', port: 47474 });
    expect(parsePeerAddress(' 10.0.4.17:40000 ')).toEqual({ address: '10.0.4.17', port: 40000 });
    expect(parsePeerAddress('kiosk-b.venue.lan:47474')).toEqual({ address: 'kiosk-b.venue.lan', port: 47474 });
  });

  it.each(['', '10.0.4.17:0', '10.0.4.17:65536', '10.0.4.256', '10.0.4', 'host:port', 'a b', '[::1]:47474', 'http://10.0.4.17'])(
    'refuses %j, saying the expected form',
    (text) => {
      expect(() => parsePeerAddress(text)).toThrow(/is not a LAN peer: expected HOST or HOST:PORT/);
    },
  );
});

describe('kiosk-config.json lan section', () => {
  it('lists the peers; no section is none', () => {
    expect(parseLanConfig({})).toEqual([]);
    expect(parseLanConfig({ lan: { peers: ['10.0.4.17', '10.0.4.18:5000'] } })).toEqual([
      { address: '10.0.4.17', port: 47474 },
      { address: '10.0.4.18', port: 5000 },
    ]);
  });

  it('refuses a bad section naming the file and the entry', () => {
    expect(() => parseLanConfig({ lan: [] }, 'cfg.json')).toThrow('cfg.json: "lan" must be an object');
    expect(() => parseLanConfig({ lan: { peer: [] } }, 'cfg.json')).toThrow('cfg.json: lan.peer is not a setting (peers)');
    expect(() => parseLanConfig({ lan: { peers: '10.0.4.17' } }, 'cfg.json')).toThrow('lan.peers must be a list');
    expect(() => parseLanConfig({ lan: { peers: ['10.0.4.17', 'nope:x'] } }, 'cfg.json')).toThrow(
      /^cfg\.json: lan\.peers\[1\]: "nope:x" is not a LAN peer/,
    );
  });
});
