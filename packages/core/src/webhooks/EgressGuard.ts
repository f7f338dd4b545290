/**
 * Which addresses a webhook delivery may connect to (SSRF guard): public
 * unicast only. Checked on the address DNS answered, and on the literal a
 * URL names, at delivery time, and the connection is pinned to that
 * address, so a name that later resolves elsewhere (rebinding) cannot slip
 * through. Follows the IANA special-purpose address registries (IPv4 and
 * IPv6); an IPv6 address is allowed only inside global unicast (2000::/3),
 * so a range the registries add later outside it is refused already. An
 * explicit setting lifts the guard for tests and private deployments
 * (decision 0010).
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import * as IpNetwork from "effect/net/IpNetwork"
import * as NetAddress from "effect/net/NetAddress"

/** Why an address is refused. */
export type Refusal =
  | "not-an-address"
  | "unspecified"
  | "loopback"
  | "private"
  | "carrier-grade-nat"
  | "link-local"
  | "multicast"
  | "reserved"
  /** An IPv6 form whose IPv4 address a router or the host itself would reach: IPv4-compatible, IPv4-translated, local-use NAT64, 6to4. */
  | "ipv4-embedding"

const blocks = (refusal: Refusal, networks: ReadonlyArray<string>) =>
  networks.map((network) => [IpNetwork.fromStringUnsafe(network), refusal] as const)

/** The refused IPv4 networks; link-local includes the cloud metadata address 169.254.169.254. */
const refusedIpv4: ReadonlyArray<readonly [IpNetwork.IpNetwork, Refusal]> = [
  ...blocks("unspecified", ["0.0.0.0/8"]),
  ...blocks("loopback", ["127.0.0.0/8"]),
  ...blocks("private", ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]),
  ...blocks("carrier-grade-nat", ["100.64.0.0/10"]),
  ...blocks("link-local", ["169.254.0.0/16"]),
  ...blocks("multicast", ["224.0.0.0/4"]),
  ...blocks("reserved", [
    // IETF protocol assignments, whole (its two anycast /32s are no webhook receivers).
    "192.0.0.0/24",
    "192.0.2.0/24",
    // The deprecated 6to4 relay anycast.
    "192.88.99.0/24",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    // 240.0.0.0/4 includes the broadcast address 255.255.255.255.
    "240.0.0.0/4"
  ])
]

/** IPv6 forms whose IPv4 address is where a connection goes: checked as that address. */
const checkedAsIpv4 = [
  // IPv4-mapped: a dual-stack socket connects to the IPv4 address itself.
  IpNetwork.fromStringUnsafe("::ffff:0:0/96"),
  // The well-known NAT64 prefix (RFC 6052), globally reachable: the translator connects to the IPv4 address.
  IpNetwork.fromStringUnsafe("64:ff9b::/96")
] as const

/** The refused IPv6 networks, in the order checked (`::` and `::1` before the `::/96` that holds them). */
const refusedIpv6: ReadonlyArray<readonly [IpNetwork.IpNetwork, Refusal]> = [
  ...blocks("unspecified", ["::/128"]),
  ...blocks("loopback", ["::1/128"]),
  ...blocks("ipv4-embedding", [
    // IPv4-compatible (deprecated, RFC 4291): `[::7f00:1]` is 127.0.0.1 to some stacks.
    "::/96",
    // IPv4-translated (SIIT, RFC 2765): `[::ffff:0:7f00:1]`.
    "::ffff:0:0:0/96",
    // Local-use NAT64 (RFC 8215): a translator of the deployment's own, which reaches private IPv4 too.
    "64:ff9b:1::/48",
    // 6to4 (RFC 3056, deprecated by RFC 7526): the relay reaches the embedded IPv4 address.
    "2002::/16"
  ]),
  // fd00:ec2::254, the IPv6 metadata address, is in fc00::/7; fec0::/10 is the deprecated site-local.
  ...blocks("private", ["fc00::/7", "fec0::/10"]),
  ...blocks("link-local", ["fe80::/10"]),
  ...blocks("multicast", ["ff00::/8"]),
  ...blocks("reserved", [
    // Discard-only, and the dummy prefix of RFC 9780.
    "100::/64",
    "100:0:0:1::/64",
    // IETF protocol assignments, whole: Teredo, benchmarking, ORCHID, AMT, AS112 (no webhook receivers there).
    "2001::/23",
    "2001:db8::/32",
    "3fff::/20",
    // Segment routing SIDs (RFC 9602).
    "5f00::/16"
  ])
]

/** IPv6 global unicast: anything outside it that no rule above names is still refused. */
const globalUnicast = IpNetwork.fromStringUnsafe("2000::/3")

const embeddedIpv4 = (address: NetAddress.Ipv6Address): NetAddress.Ipv4Address | undefined => {
  const octets = NetAddress.ipv6ToOctets(address).slice(12, 16)
  return Result.getOrUndefined(NetAddress.ipv4FromOctets(octets as unknown as NetAddress.Ipv4Octets))
}

const firstRefusal = (
  networks: ReadonlyArray<readonly [IpNetwork.IpNetwork, Refusal]>,
  ip: NetAddress.IpAddress
): Refusal | undefined => {
  for (const [network, refusal] of networks) if (IpNetwork.contains(network, ip)) return refusal
  return undefined
}

/** Why a delivery may not connect to `address` (an IP literal, brackets and zone allowed), or `undefined` when it may. */
export const refusalOf = (address: string): Refusal | undefined => {
  const parsed = NetAddress.ipFromString(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""))
  if (Result.isFailure(parsed)) return "not-an-address"
  const ip = parsed.success
  if (!NetAddress.isIpv6Address(ip)) return firstRefusal(refusedIpv4, ip)
  if (checkedAsIpv4.some((network) => IpNetwork.contains(network, ip))) {
    const v4 = embeddedIpv4(ip)
    return v4 === undefined ? "reserved" : firstRefusal(refusedIpv4, v4)
  }
  return firstRefusal(refusedIpv6, ip) ?? (IpNetwork.contains(globalUnicast, ip) ? undefined : "reserved")
}
