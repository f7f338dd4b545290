/**
 * Redis: ours (`RedisRateLimitStore.layerUrl`, its own node-redis client
 * through Effect's `Redis` service) against rate-limiter-flexible's
 * `RateLimiterRedis` on a node-redis v6 client (`useRedisPackage: true`, the
 * option for node-redis v4 and later). One connection each.
 */
import { RedisRateLimitStore } from "@analytics/adapter-redis"
import { RateLimitStore } from "@analytics/core"
import { Effect, ManagedRuntime } from "effect"
import { BurstyRateLimiter, RateLimiterRedis, RateLimiterUnion } from "rate-limiter-flexible"
import { createClient } from "redis"
import { type Contender, type Counted, countedRun, type Entry, measureRounds, oursContender, peerContender } from "./stores.ts"
import { countingProxy, hostAndPort, peerBurst, peerSustained, settings, viaProxy } from "./shared.ts"

/** Keys of this run, apart from anything else on the server. */
const prefix = `bench:ratelimit:${crypto.randomUUID()}:`

const openOurs = async (url: string) => {
  const runtime = ManagedRuntime.make(RedisRateLimitStore.layerUrl(url, { keyPrefix: `${prefix}ours:` }))
  const store = await runtime.runPromise(Effect.gen(function*() {
    return yield* RateLimitStore.RateLimitStore
  }))
  return { contender: oursContender(store), close: () => runtime.dispose() }
}

const openPeer = async (url: string) => {
  const client = createClient({ url })
  client.on("error", (error: unknown) => console.error("redis client (peer):", error))
  await client.connect()
  const limiter = (name: string, numbers: { points: number; duration: number }) =>
    new RateLimiterRedis({ storeClient: client, useRedisPackage: true, keyPrefix: `${prefix}rlf:${name}`, ...numbers })
  const burst = limiter("burst", peerBurst)
  const sustained = limiter("sustained", peerSustained)
  return {
    union: peerContender(new RateLimiterUnion(burst, sustained)),
    bursty: peerContender(new BurstyRateLimiter(sustained, burst)),
    single: peerContender(sustained),
    close: async () => {
      await client.close()
    }
  }
}

const redisEntries = (ours: Contender, peer: Awaited<ReturnType<typeof openPeer>>): ReadonlyArray<Entry> => [
  {
    name: "ours: RedisRateLimitStore",
    side: "ours",
    what: "one EVALSHA of a Lua script that reads both quotas (GET), decides, and writes both (SET ... PX) only if both pass",
    contender: ours
  },
  {
    name: "rlf: Union(burst, sustained)",
    side: "peer",
    what: "two `RateLimiterRedis` EVALs (script text sent each time; SET NX EX, INCRBY, PTTL inside), issued together",
    contender: peer.union
  },
  {
    name: "rlf: Bursty(sustained, burst)",
    side: "peer",
    what: "one EVAL (the burst limiter is asked only when the first refuses)",
    contender: peer.bursty
  },
  { name: "rlf: Redis (one layer)", side: "peer", what: "one EVAL on one key", contender: peer.single }
]

/** Calls per command since the server started (commands run by scripts included), from `INFO commandstats`. */
const commandCalls = (info: string) => {
  const calls = new Map<string, number>()
  for (const [, name, count] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(name, Number(count))
  return calls
}

export const benchRedis = async (url: string) => {
  const admin = createClient({ url })
  admin.on("error", (error: unknown) => console.error("redis client (admin):", error))
  await admin.connect()
  const version = /redis_version:(\S+)/.exec(await admin.info("server"))?.[1] ?? "?"
  const closing: Array<() => Promise<void>> = []
  try {
    const ours = await openOurs(url)
    closing.push(ours.close)
    const peer = await openPeer(url)
    closing.push(peer.close)
    const entries = redisEntries(ours.contender, peer)
    const rounds = await measureRounds("redis", entries)

    // Round trips on the wire, and what the server ran (INFO commandstats on the admin connection, INFO left out).
    const { host, port } = hostAndPort(url, 6379)
    const proxy = await countingProxy(host, port, "redis")
    closing.push(proxy.close)
    const oursCounted = await openOurs(viaProxy(url, proxy))
    closing.push(oursCounted.close)
    const peerCounted = await openPeer(viaProxy(url, proxy))
    closing.push(peerCounted.close)
    const counted: Record<string, Counted & { readonly serverCommandsPerDecision: Record<string, number> }> = {}
    for (const entry of redisEntries(oursCounted.contender, peerCounted)) {
      let before = new Map<string, number>()
      const ran: Record<string, number> = {}
      const result = await countedRun(entry.contender, proxy, {
        before: async () => {
          before = commandCalls(await admin.info("commandstats"))
        },
        after: async () => {
          for (const [name, calls] of commandCalls(await admin.info("commandstats"))) {
            const delta = calls - (before.get(name) ?? 0)
            if (name !== "info" && delta !== 0) ran[name] = delta / settings.countedDecisions
          }
        }
      })
      counted[entry.name] = { ...result, serverCommandsPerDecision: ran }
    }
    // Keys expire by themselves (the longest in an hour and five minutes); drop them now.
    for await (const keys of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if (keys.length > 0) await admin.del(keys)
    return { server: `Redis ${version}`, entries, rounds, counted }
  } finally {
    for (const close of closing.reverse()) await close().catch(() => undefined)
    await admin.close()
  }
}
