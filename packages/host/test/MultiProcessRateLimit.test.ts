/**
 * Two real host processes on one shared store, one tenant hammered through
 * both: the total admitted never exceeds the tenant's limit (decision 0009,
 * docs/operations.md: several hosts). The same hammer with per-process memory
 * counts admits more, which shows the test can tell the difference.
 */
import { databaseUrl, skippedForNoPostgres } from "@analytics/testing/postgres"
import { randomUUID } from "node:crypto"
import { afterAll, describe, expect, inject, it } from "vitest"
import { call, type Cleanups, freePort, freshDatabaseUrl, healthy, type Host, run, stop } from "./HostProcess.ts"

const redisUrl: string = inject("redisUrl")
const operatorToken = "multi-process-operator"
const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const database = () => freshDatabaseUrl(cleanups)

/** Starts two hosts on one database with the given rate-limit store; the starter tenant's token. */
const twoHosts = async (rateLimitStore: "database" | "redis" | "memory"): Promise<{ hosts: Array<Host>; token: string }> => {
  const url = await database()
  const token = `hammer-${randomUUID()}`
  const env = async () => ({
    PORT: String(await freePort()),
    ANALYTICS_STORE: "postgres",
    DATABASE_URL: url,
    ANALYTICS_RATE_LIMIT_STORE: rateLimitStore,
    ...(redisUrl === "" ? {} : { REDIS_URL: redisUrl }),
    ANALYTICS_BOOTSTRAP_TOKEN: token,
    ANALYTICS_BOOTSTRAP_PLAN: "starter",
    ANALYTICS_OPERATOR_TOKEN: operatorToken,
    // Only the rate limits are under test: no webhook worker polling the same database.
    ANALYTICS_WEBHOOK_WORKER: "false",
    LOG_LEVEL: "warn"
  })
  const hosts: Array<Host> = []
  // One after the other: the first migrates and creates the tenant, the second finds them.
  for (let i = 0; i < 2; i++) {
    const host = run(["serve"], await env())
    cleanups.push(async () => void (await stop(host)))
    await healthy(host)
    hosts.push(host)
  }
  return { hosts, token }
}

/** 200 concurrent reads of one tenant, alternating between the hosts; the statuses and the time it took. */
const hammer = async (hosts: ReadonlyArray<Host>, token: string) => {
  const startedAt = Date.now()
  const responses = await Promise.all(
    Array.from({ length: 200 }, async (_, i) => {
      const response = await fetch(`${hosts[i % 2].url}/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } })
      await response.arrayBuffer()
      return { status: response.status, retryAfter: response.headers.get("retry-after") }
    })
  )
  return { responses, seconds: (Date.now() - startedAt) / 1000 }
}

/** Hammers two hosts sharing `store` and checks the burst held across them. */
const sharedBurstHolds = async (store: "database" | "redis") => {
  const { hosts, token } = await twoHosts(store)
  const { responses, seconds } = await hammer(hosts, token)
  const admitted = responses.filter((r) => r.status === 200).length
  const refused = responses.filter((r) => r.status === 429)
  expect(admitted + refused.length).toBe(200)
  // Starter: 60 at once, then one token a second while the hammer runs.
  expect(admitted).toBeGreaterThanOrEqual(60)
  expect(admitted).toBeLessThanOrEqual(60 + Math.ceil(seconds))
  for (const r of refused) expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1)
}

describe.skipIf(databaseUrl === "")(`two host processes on one store${databaseUrl === "" ? ` ${skippedForNoPostgres}` : ""}`, () => {
  it("PostgreSQL: the tenant's burst of 60 is shared between them, never exceeded", () => sharedBurstHolds("database"), 60_000)

  if (redisUrl === "") {
    it.skip("Redis: skipped, no redis-server available (install Debian's redis-server or set TEST_REDIS_URL)", () => {})
  } else {
    it("Redis: the tenant's burst of 60 is shared between them, never exceeded", () => sharedBurstHolds("redis"), 60_000)
  }

  it("a plan changed through one host applies on its next request, and on the other host as soon as PostgreSQL tells it", async () => {
    const { hosts } = await twoHosts("database")
    const tenant = await call(hosts[0], "POST", "/v1/tenants", operatorToken, { name: "Moving", plan: "starter" })
    expect(tenant.status).toBe(201)
    const limitsAt = async (host: Host) => {
      const response = await fetch(`${host.url}/v1/workspaces`, { headers: { authorization: `Bearer ${tenant.body.token}` } })
      await response.arrayBuffer()
      return [response.headers.get("x-ratelimit-limit-burst"), response.headers.get("x-ratelimit-limit-sustained")]
    }
    // Both hosts now hold the tenant in their caches, as starter.
    expect(await limitsAt(hosts[0])).toEqual(["60", "2000"])
    expect(await limitsAt(hosts[1])).toEqual(["60", "2000"])
    for (const [i, plan, expected] of [[0, "scale", ["600", "100000"]], [1, "growth", ["180", "20000"]]] as const) {
      const changed = await call(hosts[i], "PATCH", `/v1/tenants/${tenant.body.tenant_id}`, operatorToken, { plan })
      expect(changed.status).toBe(200)
      expect(await limitsAt(hosts[i])).toEqual(expected)
      // The other host hears of it by LISTEN/NOTIFY, asynchronously: milliseconds, far from the cache's 30 s.
      const deadline = Date.now() + 2_000
      let seen = await limitsAt(hosts[1 - i])
      while (seen[0] !== expected[0] && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        seen = await limitsAt(hosts[1 - i])
      }
      expect(seen).toEqual(expected)
    }
  }, 60_000)

  it("memory (each process its own counts): the same hammer admits more than the limit", async () => {
    const { hosts, token } = await twoHosts("memory")
    const { responses, seconds } = await hammer(hosts, token)
    const admitted = responses.filter((r) => r.status === 200).length
    expect(admitted).toBeGreaterThan(60 + Math.ceil(seconds))
  }, 60_000)
})
