import { getPublicSuffix } from 'tldts';

const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A zone name is a domain name with at least two labels (example.com). DNS names are case-insensitive,
 * so the name is kept lower-cased; returns undefined when the text is not a domain name.
 */
export function normalizeZoneName(name: string): string | undefined {
  const lower = name.trim().toLowerCase().replace(/\.$/, '');
  if (lower.length === 0 || lower.length > 253) return undefined;
  const labels = lower.split('.');
  if (labels.length < 2 || !labels.every((l) => label.test(l))) return undefined;
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) return undefined;
  return lower;
}

/**
 * Whether a name is a public suffix by the Public Suffix List (ICANN and private sections: `co.uk`,
 * `github.io`): names under it belong to whoever registers them, so no user may hold the suffix itself.
 */
export function isPublicSuffix(name: string): boolean {
  return getPublicSuffix(name, { allowPrivateDomains: true }) === name;
}
