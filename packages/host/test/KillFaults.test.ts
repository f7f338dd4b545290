/**
 * `kill -9` of the packaged host in the middle of work that outlives a
 * request, then a restart on the same storage (docs/operations.md):
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
 *   agrees with its table; the next upload works. Killed after DuckDB
 *   committed the new rows but before the store switched the record to
 *   them, it keeps its old rows and record (each load has a table of its
 *   own, and the record's switch is the one commit that makes it current).
 *
 * The other faults are in ExportFaults (an export), IdempotencyFaults (an
 * idempotent POST), WebhookDelivery (deliveries in flight) and
 * PostgresRestart (the database itself).
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { databaseUrl, skippedForNoPostgres } from "@analytics/testing/postgres"
import { Receiver } from "@analytics/testing/webhooks"
import { randomUUID } from "node:crypto"
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
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

  it("an upload being loaded into DuckDB: old rows or new ones after the restart, never part, and the next upload works", async () => {
    const dir = mkdtempSync(join(tmpdir(), "analytics-upload-kill-"))
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
    const url = await freshDatabaseUrl(cleanups)
    const token = `upload-${randomUUID()}`
    const env = {
      ANALYTICS_STORE: "postgres",
      DATABASE_URL: url,
      ANALYTICS_DUCKDB_PATH: join(dir, "analytics.duckdb"),
      ANALYTICS_DATA_DIR: join(dir, "data"),
      ANALYTICS_BOOTSTRAP_TOKEN: token
    }
    const hook = await receiver()
    const first = await serving(env, token)
    // Refresh events go to the deliveries table (the outbox) as they are published: the test reads them there.
    await ok(first, token, "POST", "/v1/webhooks", { url: hook.url(), events: ["dataset.refresh.started", "dataset.refresh.succeeded", "dataset.refresh.failed"] })
    const workspace = await ok(first, token, "POST", "/v1/workspaces", { name: "Uploads" })
    const dataset = async (name: string) =>
      (await ok(first, token, "POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name, source: { type: "upload" } })).dataset_id as string
    const put = (host: Host, datasetId: string, body: Blob | string) =>
      fetch(`${host.url}/v1/datasets/${datasetId}/data`, { method: "PUT", headers: { authorization: `Bearer ${token}`, "content-type": "text/csv" }, body })
    const started = async (datasetId: string) => {
      const [row] = await query<{ at: Date }>(url, `SELECT created_at AS at FROM webhook_deliveries WHERE event_type = 'dataset.refresh.started' AND body LIKE '%${datasetId}%' ORDER BY created_at DESC LIMIT 1`)
      return row?.at
    }

    // 2 million orders (about 70 MB): a load's import takes a second or more.
    const big = join(dir, "big.csv")
    const rows = 2_000_000
    const out = createWriteStream(big)
    out.write("id,region,amount\n")
    for (let i = 0; i < rows; i += 100_000) {
      out.write(Array.from({ length: 100_000 }, (_, j) => `${i + j},${["EU", "US", "APAC"][(i + j) % 3]},${(i + j) % 100}\n`).join(""))
    }
    await new Promise((resolve) => out.end(resolve))
    const bytes = new Blob([readFileSync(big)])
    const small = (n: number) => ["id,region,amount", ...Array.from({ length: n }, (_, i) => `${i},EU,${i % 10}`)].join("\n")

    // How long a load of it takes here, from its started event to its answer, on a dataset of its own.
    const probe = await dataset("Probe")
    const probing = put(first, probe, bytes)
    const probeStarted = await until("the probe load to start", () => started(probe), 60_000)
    expect((await probing).status).toBe(200)
    const loadMs = Date.now() - new Date(probeStarted).getTime()

    // The dataset under test holds 1,000 rows; the big file is loaded into it and the host dies most of the way through.
    const orders = await dataset("Orders")
    expect((await put(first, orders, small(1_000))).status).toBe(200)
    const loading = put(first, orders, bytes).then((r) => r.status, () => "died")
    const loadStarted = await until("the load to start", () => started(orders), 60_000)
    // Halfway by the probe's measure: a loaded machine can make this load quicker than the probe's, and a kill after
    // the answer tests nothing of a load cut short.
    const killAt = new Date(loadStarted).getTime() + loadMs * 0.5
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, killAt - Date.now())))
    const uploads = join(dir, "data", "uploads")
    const waiting = readdirSync(uploads).length
    await kill9(first)
    const answered = await loading
    // A load the kill cut short had its file waiting in the service's upload directory, a plain-text copy of the rows.
    if (answered !== 200) expect(waiting).toBe(1)

    const second = await serving(env, token)
    // What the killed host left was swept at start (decision 0013, "Where the file waits").
    expect(readdirSync(uploads)).toEqual([])
    const record = await ok(second, token, "GET", `/v1/datasets/${orders}`)
    const counted = await ok(second, token, "POST", `/v1/datasets/${orders}/query`, { measures: ["count"] })
    // Old rows or new, whole: the record and the table agree (if the load answered 200 before the kill, the new ones).
    expect([1_000, rows]).toContain(record.row_count)
    if (answered === 200) expect(record.row_count).toBe(rows)
    expect(counted.data).toEqual([{ count: record.row_count }])
    console.info(`upload killed ${Math.round(killAt - new Date(loadStarted).getTime())} ms into a ${loadMs} ms load: ${record.row_count === rows ? "new" : "old"} rows after the restart`)

    // The next upload works (the dead load's table, if any, was swept at start).
    const next = await put(second, orders, small(700))
    expect(next.status).toBe(200)
    expect((await ok(second, token, "POST", `/v1/datasets/${orders}/query`, { measures: ["count"] })).data).toEqual([{ count: 700 }])
  }, 120_000)

  // Decision 0013: a load imports into a table of its own, then switches the record to it in one store commit. A host killed
  // between DuckDB's commit and the store's keeps the old record over the old rows (the new table is an orphan, swept
  // at start). Before the fix the rows were swapped in place, and the old record sat over the new rows.
  it("an upload killed after DuckDB committed its rows but before the store switched its record keeps its old rows and record", async () => {
    const dir = mkdtempSync(join(tmpdir(), "analytics-upload-kill-"))
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
    const url = await freshDatabaseUrl(cleanups)
    const token = `swap-${randomUUID()}`
    const env = { ANALYTICS_STORE: "postgres", DATABASE_URL: url, ANALYTICS_DUCKDB_PATH: join(dir, "analytics.duckdb"), ANALYTICS_BOOTSTRAP_TOKEN: token }
    const first = await serving(env, token)
    const workspace = await ok(first, token, "POST", "/v1/workspaces", { name: "Uploads" })
    const orders = (await ok(first, token, "POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: "Orders", source: { type: "upload" } })).dataset_id
    const csv = (n: number) => ["id,region,amount", ...Array.from({ length: n }, (_, i) => `${i},EU,${i % 10}`)].join("\n")
    const put = (host: Host, body: string) =>
      fetch(`${host.url}/v1/datasets/${orders}/data`, { method: "PUT", headers: { authorization: `Bearer ${token}`, "content-type": "text/csv" }, body })
    expect((await put(first, csv(1_000))).status).toBe(200)

    // Updates of dataset records wait behind the test's lock: the load gets as far as recording what it loaded.
    const lock = await holdLock(url, "LOCK TABLE datasets IN EXCLUSIVE MODE")
    const loading = put(first, csv(2_000)).then((r) => r.status, () => "died")
    await until("the load to wait to record its rows", async () => {
      const [row] = await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%update%datasets%'`)
      return row!.n === 1 ? true : undefined
    }, 30_000)
    await kill9(first)
    expect(await loading).toBe("died")
    // The UPDATE was sent before the kill, and PostgreSQL would run it once the lock is released (it autocommits):
    // ending its session too stands for a host that died a moment earlier, before sending it.
    await query(url, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%update%datasets%'`)
    await lock.release()

    const second = await serving(env, token)
    const record = await ok(second, token, "GET", `/v1/datasets/${orders}`)
    const counted = await ok(second, token, "POST", `/v1/datasets/${orders}/query`, { measures: ["count"] })
    // Old rows, whole, as the record says.
    expect(record.row_count).toBe(1_000)
    expect(counted.data).toEqual([{ count: record.row_count }])
    // The dead load's table, which no record names, was swept when the host started: the file holds the live table alone.
    await stop(second)
    const [{ load_id }] = await query<{ load_id: string }>(url, `SELECT load_id::text FROM datasets WHERE dataset_id = '${orders}'`) as [{ load_id: string }]
    const tables = await Effect.runPromise(Effect.scoped(Effect.flatMap(DuckDbEngine.make(join(dir, "analytics.duckdb")), (engine) => engine.listTables!("dataset_"))))
    expect(tables).toEqual([`dataset_${orders.replaceAll("-", "")}_${load_id.replaceAll("-", "")}`])
  }, 60_000)
})
