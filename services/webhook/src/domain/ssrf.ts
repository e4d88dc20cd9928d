import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { MAX_WEBHOOK_URL_LENGTH } from '@esign/contracts';

/**
 * Server-side request forgery rules for endpoint URLs, applied when an endpoint is registered or
 * changed and again before every attempt:
 * - `http:` or `https:` only, no user or password in the URL, at most 2,048 characters;
 * - the host name is resolved, and EVERY address it resolves to must be public: no loopback, private
 *   (RFC 1918, unique-local fc00::/7), link-local (169.254/16 with the cloud metadata address,
 *   fe80::/10), carrier-grade NAT, multicast, reserved, documentation, NAT64 or IPv4-mapped /
 *   -compatible IPv6 address, unless it lies in a network the operator allows (WEBHOOK_ALLOW_NETWORKS);
 * - the attempt connects to the address that was checked (no second resolution, so no DNS rebinding);
 * - redirects are not followed (a 3xx answer is a failed attempt).
 */
export class TargetRefusedError extends Error {
  override readonly name = 'TargetRefusedError';
}

/** The host name does not resolve (now): no request can be made, so nothing is reached. */
export class TargetUnresolvedError extends TargetRefusedError {}

// Two lists: a BlockList checks IPv4 addresses against its IPv6 rules too (as ::/96), so the families
// are kept apart, and the IPv6 forms of IPv4 addresses are told apart by hand (`embedsIpv4`).
const BLOCKED_V4 = new BlockList();
const BLOCKED_V6 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED_V4.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED_V6.addSubnet(net, bits, 'ipv6');
}

/**
 * `::`, `::1`, IPv4-compatible `::a.b.c.d` and IPv4-mapped `::ffff:a.b.c.d` (the kernel may route them to
 * the embedded IPv4 address): every address whose first 80 bits are zero. Canonical (URL) form starts
 * with `::` and has at most three groups after it.
 */
const embedsIpv4 = (address: string): boolean => {
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  return canonical.startsWith('::') && canonical.slice(2).split(':').filter(Boolean).length <= 3;
};

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>;

const systemLookup: Lookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/** The URL's syntax rules (no network): the parsed URL, or TargetRefusedError naming the rule. */
export const parseTargetUrl = (raw: string): URL => {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) throw new TargetRefusedError('url: too long');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefusedError('url: not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TargetRefusedError('url: must be http or https');
  }
  if (url.username || url.password) throw new TargetRefusedError('url: must not contain credentials');
  if (!url.hostname) throw new TargetRefusedError('url: has no host');
  return url;
};

/** Whether one address may be reached. */
export const isAddressAllowed = (address: string, allow: BlockList): boolean => {
  const family = isIP(address);
  if (family === 0) return false;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (allow.check(address, type)) return true;
  if (family === 4) return !BLOCKED_V4.check(address, 'ipv4');
  return !embedsIpv4(address) && !BLOCKED_V6.check(address, 'ipv6');
};

/**
 * Resolve the URL's host and check every address; answers the addresses to connect to (the first
 * one is used). Throws TargetRefusedError when the host does not resolve or any address is refused.
 */
export const resolveTarget = async (
  url: URL,
  allow: BlockList,
  lookup: Lookup = systemLookup,
): Promise<ResolvedAddress[]> => {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await lookup(host);
    } catch {
      throw new TargetUnresolvedError(`url: ${host} does not resolve`);
    }
    if (addresses.length === 0) throw new TargetUnresolvedError(`url: ${host} does not resolve`);
  }
  const refused = addresses.find((a) => !isAddressAllowed(a.address, allow));
  if (refused) {
    throw new TargetRefusedError(
      `url: ${literal ? 'the address' : `${host} resolves to`} ${refused.address}, a private, loopback, link-local or reserved address`,
    );
  }
  return addresses;
};

/** Parse and resolve: the checks of registration and of every attempt. */
export const checkTarget = async (
  raw: string,
  allow: BlockList,
  lookup?: Lookup,
): Promise<{ url: URL; addresses: ResolvedAddress[] }> => {
  const url = parseTargetUrl(raw);
  return { url, addresses: await resolveTarget(url, allow, lookup) };
};
