/** The on-site issuer's view of the venue network (main/onsite-issuer/lan.ts): pure functions over interface tables. */
import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { lanAddresses, localAddress, reachableUrls, suggestedBaseUrl, type InterfaceTable } from '../../../main/onsite-issuer/lan.js';

const v4 = (address: string, internal = false): NetworkInterfaceInfo => ({
  address,
  netmask: '255.255.255.0',
  family: 'IPv4',
  mac: '02:00:00:00:00:01',
  internal,
  cidr: `${address}/24`,
});
const v6 = (address: string): NetworkInterfaceInfo => ({
  address,
  netmask: 'ffff:ffff:ffff:ffff::',
  family: 'IPv6',
  mac: '02:00:00:00:00:01',
  internal: false,
  cidr: `${address}/64`,
  scopeid: 0,
});

describe('lanAddresses', () => {
  it('keeps the IPv4 addresses of real interfaces, in the order the OS lists them', () => {
    const table: InterfaceTable = {
      lo: [v4('127.0.0.1', true), { ...v6('::1'), internal: true }],
      eth0: [v4('10.0.0.5'), v6('fd00::5'), v6('fe80::1')],
      wlan0: [v4('192.168.1.20'), v4('169.254.10.1')],
      docker0: [v4('172.17.0.1')],
      'br-4f2a': [v4('172.18.0.1')],
      veth12ab: [v4('172.17.0.9')],
      virbr0: [v4('192.168.122.1')],
      vboxnet0: [v4('192.168.56.1')],
      eth1: [v4('10.0.0.5')],
      empty: undefined,
    };
    expect(lanAddresses(table)).toEqual(['10.0.0.5', '192.168.1.20']);
  });

  it('is empty on a machine without a network', () => {
    expect(lanAddresses({ lo: [v4('127.0.0.1', true)] })).toEqual([]);
    expect(lanAddresses({})).toEqual([]);
  });
});

describe('URLs', () => {
  it('suggests the first LAN address as base URL, else loopback', () => {
    expect(suggestedBaseUrl(['192.168.1.20', '10.0.0.5'], 8443)).toBe('https://192.168.1.20:8443');
    expect(suggestedBaseUrl([], 9443)).toBe('https://127.0.0.1:9443');
  });

  it('lists one URL per LAN address when listening on every interface, else the one address', () => {
    expect(reachableUrls('0.0.0.0', 8443, ['192.168.1.20', '10.0.0.5'])).toEqual(['https://192.168.1.20:8443', 'https://10.0.0.5:8443']);
    expect(reachableUrls('::', 8443, ['192.168.1.20'])).toEqual(['https://192.168.1.20:8443']);
    expect(reachableUrls('127.0.0.1', 8443, ['192.168.1.20'])).toEqual(['https://127.0.0.1:8443']);
    expect(reachableUrls('fd00::5', 8443, [])).toEqual(['https://[fd00::5]:8443']);
  });

  it('opens local windows on loopback unless the issuer listens on one address only', () => {
    expect(localAddress('0.0.0.0')).toBe('127.0.0.1');
    expect(localAddress('::')).toBe('127.0.0.1');
    expect(localAddress('127.0.0.1')).toBe('127.0.0.1');
    expect(localAddress('192.168.1.20')).toBe('192.168.1.20');
  });
});
