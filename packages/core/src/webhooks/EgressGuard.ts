/**
 * Which addresses a webhook delivery may connect to (SSRF guard): public
 * unicast only. Checked on the address DNS answered, at delivery time, and
 * the connection is pinned to that address, so a name that later resolves
 * elsewhere (rebinding) cannot slip through. Follows the IANA
 * special-purpose address registries; an explicit setting lifts the guard
 * for tests and private deployments.
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

const blocks = (refusal: Refusal, networks: ReadonlyArray<string>) =>
  networks.map((network) => [IpNetwork.fromStringUnsafe(network), refusal] as const)

/** The refused networks; link-local includes the cloud metadata address 169.254.169.254. */
const refused: ReadonlyArray<readonly [IpNetwork.IpNetwork, Refusal]> = [
  ...blocks("unspecified", ["0.0.0.0/8", "::/128"]),
  ...blocks("loopback", ["127.0.0.0/8", "::1/128"]),
  // fd00:ec2::254, the IPv6 metadata address, is in fc00::/7.
  ...blocks("private", ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7", "fec0::/10"]),
  ...blocks("carrier-grade-nat", ["100.64.0.0/10"]),
  ...blocks("link-local", ["169.254.0.0/16", "fe80::/10"]),
  ...blocks("multicast", ["224.0.0.0/4", "ff00::/8"]),
  ...blocks("reserved", [
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    // 240.0.0.0/4 includes the broadcast address 255.255.255.255.
    "240.0.0.0/4",
    "100::/64",
    "2001::/23",
    "2001:db8::/32",
    "3fff::/20"
  ])
]

/** IPv6 forms that carry an IPv4 address: checked as that address. */
const embedding = [
  { network: IpNetwork.fromStringUnsafe("::ffff:0:0/96"), offset: 12 },
  { network: IpNetwork.fromStringUnsafe("64:ff9b::/96"), offset: 12 },
  { network: IpNetwork.fromStringUnsafe("2002::/16"), offset: 2 }
] as const

const embeddedIpv4 = (address: NetAddress.Ipv6Address): NetAddress.Ipv4Address | undefined => {
  for (const { network, offset } of embedding) {
    if (IpNetwork.contains(network, address)) {
      const octets = NetAddress.ipv6ToOctets(address).slice(offset, offset + 4)
      return Result.getOrUndefined(NetAddress.ipv4FromOctets(octets as unknown as NetAddress.Ipv4Octets))
    }
  }
  return undefined
}

/** Why a delivery may not connect to `address` (an IP literal), or `undefined` when it may. */
export const refusalOf = (address: string): Refusal | undefined => {
  const parsed = NetAddress.ipFromString(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""))
  if (Result.isFailure(parsed)) return "not-an-address"
  const ip = parsed.success
  if (NetAddress.isIpv6Address(ip)) {
    const v4 = embeddedIpv4(ip)
    if (v4 !== undefined) return refusalOf(NetAddress.formatIp(v4))
  }
  for (const [network, refusal] of refused) if (IpNetwork.contains(network, ip)) return refusal
  return undefined
}
