/**
 * The private-destination guard. A destination is a request the server makes for a zone owner, so by
 * default it may not reach loopback, private, shared (CGNAT), link-local (cloud metadata), unique-local,
 * multicast or reserved addresses. The check runs twice: when a destination is validated (a clear 400),
 * and inside the connection's own DNS lookup, so a name that resolves elsewhere later (DNS rebinding)
 * is still refused. Literal IP hosts skip DNS, so they are checked before connecting instead.
 */
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { ErrorDetail } from '../core/app-error.ts';
import { destinationConfPointer } from '../domain/jobs/destination-spec.ts';
import type { DestinationSpec } from '../domain/jobs/destination-spec.ts';
import { classifyAddress } from './address-class.ts';

/** The error code carried by a refused connection, so destinations can classify it. */
export const privateAddressCode = 'ELOGEXPORT_PRIVATE_ADDRESS';

/** A connection refused by the guard; its message is meant for users. */
export class PrivateAddressError extends Error {
  readonly code = privateAddressCode;
  readonly host: string;
  readonly address: string;

  constructor(host: string, address: string) {
    const kind = classifyAddress(address);
    const shown = host === address ? address : `${host} (${address})`;
    super(
      `destination ${shown} is a ${kind} address; private destinations are refused unless LOGEXPORT_ALLOW_PRIVATE_DESTINATIONS=true`,
    );
    this.name = 'PrivateAddressError';
    this.host = host;
    this.address = address;
  }
}

/** Resolves a host name to all its addresses (injectable for tests). */
export type ResolveAll = (host: string) => Promise<readonly { readonly address: string }[]>;

const systemResolveAll: ResolveAll = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

/**
 * The network host a destination connects to and the guard must check, or undefined when there is none
 * the user controls (files; AWS and R2 endpoints, built from validated names).
 */
export function guardedHost(spec: DestinationSpec): string | undefined {
  switch (spec.kind) {
    case 'file':
    case 'r2':
      return undefined;
    case 's3':
      return spec.endpoint === undefined ? undefined : new URL(spec.endpoint).hostname;
    case 'http':
      return new URL(spec.url).hostname;
  }
}

/**
 * Validation-time check: resolves the destination's host and refuses it when any address is not public
 * (and `allowPrivate` is off), or when it cannot be resolved at all.
 */
export async function checkDestinationAddress(
  spec: DestinationSpec,
  allowPrivate: boolean,
  resolveAll: ResolveAll = systemResolveAll,
): Promise<ErrorDetail | undefined> {
  if (allowPrivate) return undefined;
  const host = guardedHost(spec);
  if (host === undefined) return undefined;
  const bare = unbracket(host);
  if (isIP(bare) !== 0) {
    const refusal = literalHostRefusal(bare, false);
    return refusal === undefined ? undefined : { message: refusal.message, pointer: destinationConfPointer };
  }
  let addresses: readonly { readonly address: string }[];
  try {
    addresses = await resolveAll(bare);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { message: `destination host ${bare} could not be resolved${typeof code === 'string' ? ` (${code})` : ''}`, pointer: destinationConfPointer };
  }
  const refused = addresses.find((entry) => classifyAddress(entry.address) !== 'public');
  if (refused !== undefined) return { message: new PrivateAddressError(bare, refused.address).message, pointer: destinationConfPointer };
  if (addresses.length === 0) return { message: `destination host ${bare} has no addresses`, pointer: destinationConfPointer };
  return undefined;
}

/** The refusal for a literal IP host (which never goes through DNS), or undefined when it may be used. */
export function literalHostRefusal(host: string, allowPrivate: boolean): PrivateAddressError | undefined {
  const bare = unbracket(host);
  if (allowPrivate || isIP(bare) === 0 || classifyAddress(bare) === 'public') return undefined;
  return new PrivateAddressError(bare, bare);
}

/**
 * A `lookup` for http(s) agents that resolves like node's and then refuses the connection when any
 * resolved address is not public. With `allowPrivate` it is node's lookup unchanged.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  if (allowPrivate) return dns.lookup as LookupFunction;
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) {
        callback(error, '', undefined);
        return;
      }
      const refused = addresses.find((entry) => classifyAddress(entry.address) !== 'public');
      if (refused !== undefined) {
        callback(new PrivateAddressError(hostname, refused.address), '', undefined);
        return;
      }
      if (options.all === true) {
        callback(null, addresses);
        return;
      }
      const first = addresses[0];
      if (first === undefined) {
        callback(Object.assign(new Error(`no addresses for ${hostname}`), { code: 'ENOTFOUND' }), '', undefined);
        return;
      }
      callback(null, first.address, first.family);
    });
  };
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
