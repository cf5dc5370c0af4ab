/** An address range in CIDR notation (`198.51.100.0/24`, `2001:db8::/32`), as the audit log's `actor.ip` filter takes it. */
import { BlockList, isIP } from 'node:net';

export interface IpNetwork {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

/** The network a CIDR text names, or undefined when it is not one. */
export function parseIpNetwork(text: string): IpNetwork | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text);
  if (m === null) return undefined;
  const address = m[1] ?? '';
  const prefix = Number(m[2]);
  const version = isIP(address);
  if (version === 4 && prefix <= 32) return { address, prefix, family: 'ipv4' };
  if (version === 6 && prefix <= 128) return { address, prefix, family: 'ipv6' };
  return undefined;
}

/** A test of addresses against the network (node's BlockList; IPv4-mapped IPv6 addresses match IPv4 ranges). */
export function networkMatcher(network: IpNetwork): (ip: string) => boolean {
  const list = new BlockList();
  list.addSubnet(network.address, network.prefix, network.family);
  return (ip) => {
    const version = isIP(ip);
    if (version === 0) return false;
    return list.check(ip, version === 4 ? 'ipv4' : 'ipv6');
  };
}
