/**
 * LAN peers listed by hand (docs/kiosk.md "Kiosks on one LAN"): for a network without multicast, IT lists the
 * other kiosks in kiosk-config.json (`"lan": {"peers": ["10.0.4.17", "10.0.4.18:47474"]}`) or with the web host's
 * `--lan-peer HOST[:PORT]` (repeatable). They go into the same peer list discovery fills, and never expire. Pure.
 */
import { DEFAULT_LAN_PORT, type PeerAddress } from './lan-peers.js';

/** An IPv4 address, or a host name (looked up when the LAN starts). */
const HOST = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*)$/;

/** `HOST` or `HOST:PORT` (default port 47474); throws a message naming the text and the expected form. */
export function parsePeerAddress(text: string): PeerAddress {
  const trimmed = text.trim();
  const match = /^([^:\s]+)(?::(\d{1,5}))?$/.exec(trimmed);
  const port = match?.[2] === undefined ? DEFAULT_LAN_PORT : Number(match[2]);
  const ipv4Parts = match?.[1] !== undefined && /^[\d.]+$/.test(match[1]) ? match[1].split('.').map(Number) : null;
  const badIpv4 = ipv4Parts !== null && (ipv4Parts.length !== 4 || ipv4Parts.some((part) => part > 255));
  if (!match || !HOST.test(match[1]!) || badIpv4 || port < 1 || port > 65535) {
    throw new Error(`"${text}" is not a LAN peer: expected HOST or HOST:PORT (an IPv4 address or a host name), e.g. 10.0.4.17:47474`);
  }
  return { address: match[1]!, port };
}

/** The `lan` section of kiosk-config.json: its hand-listed peers ([] without one). Throws, naming the file, on a bad one. */
export function parseLanConfig(config: unknown, where = 'kiosk-config.json'): PeerAddress[] {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new Error(`${where}: expected a JSON object`);
  const section = (config as Record<string, unknown>)['lan'];
  if (section === undefined) return [];
  if (typeof section !== 'object' || section === null || Array.isArray(section))
    throw new Error(`${where}: "lan" must be an object, e.g. {"peers": ["10.0.4.17:47474"]}`);
  for (const name of Object.keys(section)) {
    if (name !== 'peers') throw new Error(`${where}: lan.${name} is not a setting (peers)`);
  }
  const peers = (section as Record<string, unknown>)['peers'];
  if (peers === undefined) return [];
  if (!Array.isArray(peers) || peers.some((peer) => typeof peer !== 'string'))
    throw new Error(`${where}: lan.peers must be a list of "HOST:PORT" texts, e.g. ["10.0.4.17:47474"]`);
  return peers.map((peer: string, index) => {
    try {
      return parsePeerAddress(peer);
    } catch (error) {
      throw new Error(`${where}: lan.peers[${index}]: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  });
}
