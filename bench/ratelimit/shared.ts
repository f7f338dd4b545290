/**
 * What every part of `bench:ratelimit` shares: the settings, the tenants and
 * limits both sides decide on, the peer's calling convention, statistics, and
 * a counting TCP proxy that measures round trips on the wire.
 */
import { RateLimit, type Tenant } from "@analytics/core"
import * as Net from "node:net"

const numberFromEnv = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${raw}`)
  return value
}

export const settings = {
  /** Measured seconds per memory variant per round; a concurrent store run lasts half of it. */
  seconds: numberFromEnv("BENCH_SECONDS", 1),
  /** Interleaved rounds; medians are reported. */
  rounds: Math.round(numberFromEnv("BENCH_ROUNDS", 3)),
  /** Sequential decisions per store per round (latency percentiles). */
  decisions: Math.round(numberFromEnv("BENCH_DECISIONS", 1500)),
  /** Decisions counted through the proxy per store (round trips, statements, commands). */
  countedDecisions: 1000,
  /** Decisions in flight in the concurrent store runs. */
  concurrency: Math.round(numberFromEnv("BENCH_CONCURRENCY", 32)),
  /** Tenants decided round-robin: no side benefits from one hot key. */
  tenants: 1000
}

/** The tenants, decided round-robin. */
export const tenantIds: ReadonlyArray<Tenant.TenantId> = Array.from(
  { length: settings.tenants },
  () => crypto.randomUUID() as Tenant.TenantId
)

/**
 * The two layers both sides count: a Custom plan at its highest negotiable
 * numbers (1,000,000 requests a minute, 1,000,000,000 an hour), so no run
 * refuses anything (each side counts its refusals, and the runner checks they are 0).
 */
export const limitNumbers = { burst: 1_000_000, sustained: 1_000_000_000, queryConcurrency: 32 } as const
export const limits = RateLimit.limitsOf(limitNumbers)

/** The peer's limiters with the same numbers: fixed windows of 60 s and 3,600 s. */
export const peerBurst = { points: limitNumbers.burst, duration: 60 }
export const peerSustained = { points: limitNumbers.sustained, duration: 3600 }

/** Ours, as the service's edge gets them per request: the tenant's `burst` and `sustained` quotas, kept per tenant. */
const tenantQuotas = RateLimit.makeTenantQuotas()
export const quotasOf = (i: number) => tenantQuotas(tenantIds[i % settings.tenants], "read", limits)
const peerKeys = tenantIds.map((tenantId) => `tenant:${tenantId}:read`)
/** The peer's key for a tenant, built once like ours (rate-limiter-flexible prefixes it on every call itself). */
export const keyOf = (i: number) => peerKeys[i % settings.tenants]

/** What the peer's limiters have in common. */
export interface PeerLimiter {
  consume(key: string): Promise<unknown>
}

/**
 * One peer decision, awaited as its users do: resolves true when allowed,
 * false when refused (rejected with a `RateLimiterRes`, or a union's map of
 * them), and throws the store's errors.
 */
export const peerConsume = (limiter: PeerLimiter, key: string): Promise<boolean> =>
  limiter.consume(key).then(
    () => true,
    (rejection: unknown) => {
      if (rejection instanceof Error) throw rejection
      // RateLimiterUnion rejects with { [keyPrefix]: RateLimiterRes | Error }.
      for (const value of Object.values(rejection as object)) if (value instanceof Error) throw value
      return false
    }
  )

// ---------------------------------------------------------------------------
// statistics

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Percentiles (nearest rank) of latencies in µs. */
export const latencyOf = (micros: Float64Array) => {
  const sorted = Float64Array.from(micros).sort()
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
  let sum = 0
  for (const value of sorted) sum += value
  return { p50: at(50), p90: at(90), p99: at(99), max: sorted[sorted.length - 1], mean: sum / sorted.length }
}

export const round = (n: number, digits = 0) => Math.round(n * 10 ** digits) / 10 ** digits

export const nowNanos = () => process.hrtime.bigint()
export const secondsSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9

// ---------------------------------------------------------------------------
// counting proxy

/**
 * What crossed the proxy: `roundTrips` counts the client's sends that follow
 * an answer (a request the client had to wait for, however many TCP chunks
 * carry it), summed over connections; `commands` counts what the client
 * asked for: PostgreSQL's Execute and simple Query messages, or Redis
 * commands (`undefined` when the connection was encrypted and could not be read).
 */
export interface WireCounts {
  readonly roundTrips: number
  readonly commands: number | undefined
}

export interface CountingProxy {
  readonly port: number
  readonly counts: () => WireCounts
  readonly reset: () => void
  readonly close: () => Promise<void>
}

/** PostgreSQL frontend messages, counting Execute ('E') and Query ('Q'): untyped until the StartupMessage. */
const pgStatementCounter = (onStatement: () => void) => {
  let buffer: Buffer = Buffer.alloc(0)
  let startup = true
  return (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
    for (;;) {
      if (startup) {
        if (buffer.length < 8) return
        const length = buffer.readInt32BE(0)
        if (buffer.length < length) return
        const code = buffer.readInt32BE(4)
        // SSLRequest and GSSENCRequest come before the StartupMessage.
        if (code !== 80877103 && code !== 80877104) startup = false
        buffer = buffer.subarray(length)
        continue
      }
      if (buffer.length < 5) return
      const length = buffer.readInt32BE(1)
      if (buffer.length < 1 + length) return
      if (buffer[0] === 0x45 || buffer[0] === 0x51) onStatement()
      buffer = buffer.subarray(1 + length)
    }
  }
}

/** Redis commands (RESP arrays of bulk strings, as clients send them). */
const respCommandCounter = (onCommand: () => void) => {
  let buffer: Buffer = Buffer.alloc(0)
  /** Position of the next "\r\n" at or after `from`, or -1. */
  const lineEnd = (from: number) => buffer.indexOf("\r\n", from)
  return (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
    for (;;) {
      // One command: "*<n>\r\n" then n times "$<len>\r\n<bytes>\r\n"; wait for all of it.
      let end = lineEnd(0)
      if (end < 0) return
      const parts = Number(buffer.subarray(1, end).toString("latin1"))
      let at = end + 2
      for (let i = 0; i < parts; i++) {
        end = lineEnd(at)
        if (end < 0) return
        at = end + 2 + Number(buffer.subarray(at + 1, end).toString("latin1")) + 2
        if (at > buffer.length) return
      }
      onCommand()
      buffer = buffer.subarray(at)
    }
  }
}

/** A TCP proxy on 127.0.0.1 to `host:port` that counts round trips and the commands sent. */
export const countingProxy = (host: string, port: number, protocol: "postgres" | "redis"): Promise<CountingProxy> =>
  new Promise((resolve, reject) => {
    let roundTrips = 0
    let commands = 0
    let readable = true
    const sockets = new Set<Net.Socket>()
    const server = Net.createServer((client) => {
      const upstream = Net.connect({ host, port })
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.setNoDelay(true)
        socket.once("close", () => sockets.delete(socket))
        socket.on("error", () => {
          client.destroy()
          upstream.destroy()
        })
      }
      let answered = true
      let serverSpoke = false
      const count = (protocol === "postgres" ? pgStatementCounter : respCommandCounter)(() => commands++)
      client.on("data", (chunk: Buffer) => {
        if (answered) roundTrips++
        answered = false
        count(chunk)
        upstream.write(chunk)
      })
      upstream.on("data", (chunk: Buffer) => {
        // 'S' to an SSLRequest: TLS follows, and its messages cannot be read here.
        if (protocol === "postgres" && !serverSpoke && chunk.length === 1 && chunk[0] === 0x53) readable = false
        serverSpoke = true
        answered = true
        client.write(chunk)
      })
      client.on("end", () => upstream.end())
      upstream.on("end", () => client.end())
    })
    server.once("error", reject)
    server.listen({ host: "127.0.0.1", port: 0 }, () => {
      const address = server.address() as Net.AddressInfo
      resolve({
        port: address.port,
        counts: () => ({ roundTrips, commands: readable ? commands : undefined }),
        reset: () => {
          roundTrips = 0
          commands = 0
        },
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          })
      })
    })
  })

/** `url` with its host and port replaced by the proxy's. */
export const viaProxy = (url: string, proxy: CountingProxy): string => {
  const parsed = new URL(url)
  parsed.hostname = "127.0.0.1"
  parsed.port = String(proxy.port)
  return parsed.toString()
}

/** Host and port of a `postgres://` or `redis://` URL. */
export const hostAndPort = (url: string, defaultPort: number): { readonly host: string; readonly port: number } => {
  const parsed = new URL(url)
  return { host: parsed.hostname || "127.0.0.1", port: parsed.port === "" ? defaultPort : Number(parsed.port) }
}
