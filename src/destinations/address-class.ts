/**
 * What kind of network an IP address belongs to, for the private-destination guard. Pure: parses the
 * textual address itself (node's `net.BlockList` cannot say *which* range matched, nor look inside NAT64
 * addresses).
 */
import { isIPv4, isIPv6 } from 'node:net';

/** The class of an address; everything but `public` is refused unless private destinations are allowed. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link-local'
  | 'unique-local'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'invalid';

interface Range {
  readonly bytes: readonly number[];
  readonly prefix: number;
  readonly kind: Exclude<AddressClass, 'public' | 'invalid'>;
}

const v4Ranges: readonly Range[] = [
  { bytes: [0, 0, 0, 0], prefix: 8, kind: 'unspecified' },
  { bytes: [10, 0, 0, 0], prefix: 8, kind: 'private' },
  { bytes: [100, 64, 0, 0], prefix: 10, kind: 'shared' },
  { bytes: [127, 0, 0, 0], prefix: 8, kind: 'loopback' },
  { bytes: [169, 254, 0, 0], prefix: 16, kind: 'link-local' },
  { bytes: [172, 16, 0, 0], prefix: 12, kind: 'private' },
  { bytes: [192, 0, 0, 0], prefix: 24, kind: 'reserved' },
  { bytes: [192, 168, 0, 0], prefix: 16, kind: 'private' },
  { bytes: [198, 18, 0, 0], prefix: 15, kind: 'reserved' },
  { bytes: [224, 0, 0, 0], prefix: 4, kind: 'multicast' },
  { bytes: [240, 0, 0, 0], prefix: 4, kind: 'reserved' },
];

const v6Ranges: readonly Range[] = [
  { bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], prefix: 128, kind: 'unspecified' },
  { bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], prefix: 128, kind: 'loopback' },
  // IPv4-compatible (deprecated) addresses: nothing legitimate uses them.
  { bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], prefix: 96, kind: 'reserved' },
  { bytes: [0, 0x64, 0xff, 0x9b, 0, 1], prefix: 48, kind: 'reserved' },
  { bytes: [1, 0, 0, 0, 0, 0, 0, 0], prefix: 64, kind: 'reserved' },
  { bytes: [0xfc], prefix: 7, kind: 'unique-local' },
  { bytes: [0xfe, 0x80], prefix: 10, kind: 'link-local' },
  { bytes: [0xfe, 0xc0], prefix: 10, kind: 'reserved' },
  { bytes: [0xff], prefix: 8, kind: 'multicast' },
];

/** Classifies an IPv4 or IPv6 address (IPv4-mapped and NAT64 addresses by the IPv4 address inside). */
export function classifyAddress(address: string): AddressClass {
  const zoneless = address.includes('%') ? address.slice(0, address.indexOf('%')) : address;
  const bracketless = zoneless.startsWith('[') && zoneless.endsWith(']') ? zoneless.slice(1, -1) : zoneless;
  if (isIPv4(bracketless)) return classifyBytes(bracketless.split('.').map(Number), v4Ranges);
  if (!isIPv6(bracketless)) return 'invalid';
  const bytes = parseIPv6(bracketless);
  if (bytes === undefined) return 'invalid';
  if (startsWith(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96) || startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96)) {
    return classifyBytes(bytes.slice(12), v4Ranges);
  }
  return classifyBytes(bytes, v6Ranges);
}

function classifyBytes(bytes: readonly number[], ranges: readonly Range[]): AddressClass {
  for (const range of ranges) {
    if (startsWith(bytes, range.bytes, range.prefix)) return range.kind;
  }
  return 'public';
}

function startsWith(bytes: readonly number[], prefixBytes: readonly number[], prefixBits: number): boolean {
  for (let bit = 0; bit < prefixBits; bit += 8) {
    const index = bit / 8;
    const remaining = Math.min(8, prefixBits - bit);
    const mask = (0xff << (8 - remaining)) & 0xff;
    if (((bytes[index] ?? 0) & mask) !== ((prefixBytes[index] ?? 0) & mask)) return false;
  }
  return true;
}

/** 16 bytes of an address `net.isIPv6` accepted (so the syntax is already known to be right). */
function parseIPv6(text: string): number[] | undefined {
  let head = text;
  let tailV4: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    tailV4 = last.split('.').map(Number);
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  const groups = (part: string | undefined): number[] => (part === undefined || part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = groups(halves[0]);
  const right = halves.length > 1 ? groups(halves[1]) : [];
  const fill = 8 - left.length - right.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return undefined;
  const words = [...left, ...new Array<number>(fill).fill(0), ...right];
  const bytes = words.flatMap((w) => [(w >> 8) & 0xff, w & 0xff]);
  if (tailV4.length === 4) bytes.splice(12, 4, ...tailV4);
  return bytes;
}
