/**
 * The machine's addresses on the venue network, for the on-site issuer: the
 * URLs scanners can use, the default base URL, and the names its self-signed
 * certificate carries. Pure functions of os.networkInterfaces() output.
 */
import type { NetworkInterfaceInfo } from 'node:os';

export type InterfaceTable = NodeJS.Dict<NetworkInterfaceInfo[]>;

/**
 * Interfaces that are not the venue network: container and VM bridges and
 * their virtual ends. A kiosk on the LAN can never reach these addresses.
 */
const VIRTUAL_INTERFACE = /^(docker|br-|veth|virbr|vboxnet|vmnet|cni|flannel|kube|tailscale|zt|lxc|lxd)/i;

/**
 * The IPv4 addresses scanners on the LAN may reach this machine at: not
 * loopback, not link-local (169.254/16, which only exists when DHCP failed),
 * not a container or VM bridge. In the order the OS lists them.
 */
export function lanAddresses(interfaces: InterfaceTable): string[] {
  const addresses: string[] = [];
  for (const [name, entries] of Object.entries(interfaces)) {
    if (VIRTUAL_INTERFACE.test(name)) continue;
    for (const entry of entries ?? []) {
      // Node 18.0–18.3 reported family as a number; Node 20 as 'IPv4'.
      const ipv4 = entry.family === 'IPv4' || (entry.family as unknown) === 4;
      if (!ipv4 || entry.internal || entry.address.startsWith('169.254.')) continue;
      if (!addresses.includes(entry.address)) addresses.push(entry.address);
    }
  }
  return addresses;
}

/** The base URL a new on-site issuer suggests: its first LAN address, or loopback when it has none. */
export function suggestedBaseUrl(addresses: readonly string[], port: number): string {
  const host = addresses[0] ?? '127.0.0.1';
  return `https://${host}:${port}`;
}

/** Where scanners reach an issuer listening on `host`:`port` over HTTPS. */
export function reachableUrls(host: string, port: number, addresses: readonly string[]): string[] {
  if (host === '0.0.0.0' || host === '::') return addresses.map((address) => `https://${address}:${port}`);
  return [`https://${host.includes(':') ? `[${host}]` : host}:${port}`];
}

/** The address this machine's own windows use for an issuer listening on `host`. */
export function localAddress(host: string): string {
  return host === '0.0.0.0' || host === '::' || host === 'localhost' ? '127.0.0.1' : host;
}
