import ipaddr from 'ipaddr.js';

/**
 * Who a per-address limit counts (customer pages, sign-in and sign-up): an IPv4 address, or an
 * IPv6 address's /64. One subscriber, host or VM is given a whole /64 and can pick any of its
 * 2^64 addresses for each request, so counting single IPv6 addresses would be no limit at all.
 * An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, a dual-stack socket) counts as its IPv4.
 * Anything unparsable is counted as given.
 */
export function rateLimitClient(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(':')}::/64`;
}

/** The client's own address, an IPv4-mapped IPv6 one as its IPv4 (what a bank asks as the customer's). */
export function plainClientAddress(address: string): string {
  return ipaddr.isValid(address) ? ipaddr.process(address).toString() : address;
}

/**
 * The customer's address if it is a public unicast one, for a bank that asks it. A private,
 * loopback or reserved one means we see a proxy's or our own network, not the customer
 * (TRUST_PROXY unset behind a load balancer): no bank is told one shared wrong address.
 */
export function publicClientAddress(address: string | undefined): string | undefined {
  if (!address || !ipaddr.isValid(address)) return undefined;
  const parsed = ipaddr.process(address);
  return parsed.range() === 'unicast' ? parsed.toString() : undefined;
}
