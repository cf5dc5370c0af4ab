/**
 * Failures below HTTP (sockets, DNS, TLS, the private-address guard), shared by the HTTP and S3
 * destinations so both judge the same network trouble the same way.
 */
import { permanent, retry, type FailedOutcome } from './destination.ts';
import { privateAddressCode } from './private-address.ts';

/** Certificate problems: the receiver's configuration, so retrying as is will not help. */
const tlsTrustCodes = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_REVOKED',
]);

/**
 * Classifies a transport error; `who` names the destination in the reason ("the HTTP destination").
 * Anything unrecognised is a retry: a network that misbehaves usually recovers.
 */
export function classifyTransportError(error: unknown, who: string): FailedOutcome {
  const rawCode = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const code = typeof rawCode === 'string' ? rawCode : undefined;
  const message = error instanceof Error ? error.message : String(error);
  if (code === privateAddressCode) return permanent(message);
  if (code !== undefined && tlsTrustCodes.has(code)) {
    return permanent(`the TLS certificate of ${who} is not trusted (${code}); it needs a certificate from a public CA`);
  }
  switch (code) {
    case 'ECONNREFUSED':
      return retry(`${who} refused the connection`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return retry(`the host name of ${who} could not be resolved (${code})`);
    case 'ECONNRESET':
    case 'EPIPE':
      return retry(`${who} closed the connection`);
    default:
      return retry(`could not reach ${who}: ${code !== undefined ? `${code} ` : ''}${message}`);
  }
}
