/**
 * PostgreSQL: ours (`SqlRateLimitStore` over `SqlStores.layerPg`, a pool of
 * @effect/sql-pg connections, on a fresh migrated database) against
 * rate-limiter-flexible's `RateLimiterPostgres` on a `pg` pool (its own fresh
 * database), both pools of 10 connections.
 */
import { SqlRateLimitStore, SqlStores } from "@analytics/adapter-postgres"
import { RateLimitStore } from "@analytics/core"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import pg from "pg"
import { BurstyRateLimiter, RateLimiterPostgres, RateLimiterUnion } from "rate-limiter-flexible"
import { type Contender, type Counted, countedRun, type Entry, measureRounds, oursContender, peerContender } from "./stores.ts"
import { countingProxy, hostAndPort, peerBurst, peerSustained, viaProxy } from "./shared.ts"

const poolSize = 10

/** `url` on another database of the same server. */
const onDatabase = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** Ours on `url`: the store, and how to close it. */
const openOurs = async (url: string) => {
  const runtime = ManagedRuntime.make(
    Layer.provide(SqlRateLimitStore.layer, SqlStores.layerPg(Redacted.make(url), { maxConnections: poolSize }))
  )
  const store = await runtime.runPromise(Effect.gen(function*() {
    return yield* RateLimitStore.RateLimitStore
  }))
  return { contender: oursContender(store), close: () => runtime.dispose() }
}

/** A `RateLimiterPostgres` ready to use (its table created). */
const peerLimiter = (pool: pg.Pool, keyPrefix: string, numbers: { points: number; duration: number }) =>
  new Promise<RateLimiterPostgres>((resolve, reject) => {
    const limiter: RateLimiterPostgres = new RateLimiterPostgres(
      { storeClient: pool, storeType: "pool", tableName: "rate_limiter_flexible", keyPrefix, ...numbers },
      (error?: Error) => (error === undefined ? resolve(limiter) : reject(error))
    )
  })

/** The peer's three ways on `url`. */
const openPeer = async (url: string) => {
  const pool = new pg.Pool({ connectionString: url, max: poolSize })
  const burst = await peerLimiter(pool, "burst", peerBurst)
  const sustained = await peerLimiter(pool, "sustained", peerSustained)
  return {
    union: peerContender(new RateLimiterUnion(burst, sustained)),
    bursty: peerContender(new BurstyRateLimiter(sustained, burst)),
    single: peerContender(sustained),
    close: () => pool.end()
  }
}

export const postgresEntries = (ours: Contender, peer: Awaited<ReturnType<typeof openPeer>>): ReadonlyArray<Entry> => [
  {
    name: "ours: SqlRateLimitStore",
    side: "ours",
    what: "one `SELECT ... FROM analytics_rate_limit_consume(keys, ...)` decides and keeps both quotas (locks, reads, writes all or nothing)",
    contender: ours
  },
  {
    name: "rlf: Union(burst, sustained)",
    side: "peer",
    what: "two `RateLimiterPostgres` upserts (`INSERT ... ON CONFLICT DO UPDATE ... RETURNING`), in parallel on two pooled connections",
    contender: peer.union
  },
  {
    name: "rlf: Bursty(sustained, burst)",
    side: "peer",
    what: "one upsert (the burst limiter is asked only when the first refuses)",
    contender: peer.bursty
  },
  {
    name: "rlf: Postgres (one layer)",
    side: "peer",
    what: "one upsert on one key",
    contender: peer.single
  }
]

export const benchPostgres = async (baseUrl: string) => {
  const admin = new pg.Client({ connectionString: baseUrl })
  await admin.connect()
  const suffix = `${process.pid}_${Date.now()}`
  const databases = { ours: `bench_ratelimit_ours_${suffix}`, peer: `bench_ratelimit_rlf_${suffix}` }
  for (const database of Object.values(databases)) await admin.query(`CREATE DATABASE ${database}`)
  const version = (await admin.query<{ server_version: string }>("SHOW server_version")).rows[0].server_version
  const closing: Array<() => Promise<void>> = []
  try {
    const oursUrl = onDatabase(baseUrl, databases.ours)
    const peerUrl = onDatabase(baseUrl, databases.peer)
    const ours = await openOurs(oursUrl)
    closing.push(ours.close)
    const peer = await openPeer(peerUrl)
    closing.push(peer.close)
    const entries = postgresEntries(ours.contender, peer)
    const rounds = await measureRounds("postgres", entries)

    // Round trips: the same stores again, on clients connected through the counting proxy.
    const { host, port } = hostAndPort(baseUrl, 5432)
    const proxy = await countingProxy(host, port, "postgres")
    closing.push(proxy.close)
    const oursCounted = await openOurs(viaProxy(oursUrl, proxy))
    closing.push(oursCounted.close)
    const peerCounted = await openPeer(viaProxy(peerUrl, proxy))
    closing.push(peerCounted.close)
    const counted: Record<string, Counted> = {}
    for (const entry of postgresEntries(oursCounted.contender, peerCounted)) {
      counted[entry.name] = await countedRun(entry.contender, proxy)
    }
    return { server: `PostgreSQL ${version}`, entries, rounds, counted }
  } finally {
    for (const close of closing.reverse()) await close().catch(() => undefined)
    for (const database of Object.values(databases)) {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined)
    }
    await admin.end()
  }
}
