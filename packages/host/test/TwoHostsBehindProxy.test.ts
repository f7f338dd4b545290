/**
 * Two host processes on one PostgreSQL behind a round-robin HTTP proxy on
 * loopback, as a load balancer would put them (docs/operations.md, several hosts):
 * through it, the service behaves as one host would.
 *
 * - Rate limits (`ANALYTICS_RATE_LIMIT_STORE=database`): a starter tenant's
 *   hammer admits at most its burst plus what refills meanwhile, summed
 *   over both hosts.
 * - Idempotency: one key sent twice at once (so once to each host), and
 *   again in sequence: one resource; the others are a 409 in progress or a
 *   replay of the one response.
 * - Webhook deliveries: both hosts run the delivery worker; each delivery
 *   reaches a real HTTPS receiver once.
 * - Grant revocation: a link revoked through one host is refused by the
 *   other on its next request (nothing caches a grant, decision 0014).
 *
 * Export jobs, each run once by either of two hosts, are shown by
 * ExportsTwoHosts.test.ts (same setup without the proxy: which host runs a
 * job depends on the workers' polls, not on where it was queued).
 */
import { until } from "@analytics/testing"
import { databaseUrl, skippedForNoPostgres } from "@analytics/testing/postgres"
import { Receiver } from "@analytics/testing/webhooks"
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, type Cleanups, freePort, freshDatabaseUrl, healthy, type Host, run, stop } from "./HostProcess.ts"
import { query } from "./PostgresProbe.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** The header the proxy adds to each answer: which upstream (0 or 1) served it. */
const upstreamHeader = "x-test-upstream"

/**
 * A round-robin HTTP proxy listening on `port`: each request goes to the
 * next upstream in turn (per request, not per connection, so a keep-alive
 * client still alternates).
 */
const roundRobin = async (port: number, ports: ReadonlyArray<number>) => {
  let next = 0
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
  const server = http.createServer((request, response) => {
    const index = next++ % ports.length
    const forwarded = http.request(
      { host: "127.0.0.1", port: ports[index], method: request.method, path: request.url, headers: request.headers, agent },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, { ...answer.headers, [upstreamHeader]: String(index) })
        answer.pipe(response)
      }
    )
    forwarded.on("error", (error) => {
      if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" })
      response.end(String(error))
    })
    request.pipe(forwarded)
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", resolve)
  })
  cleanups.push(() =>
    new Promise<void>((resolve) => {
      agent.destroy()
      server.closeAllConnections()
      server.close(() => resolve())
    })
  )
  return `http://127.0.0.1:${port}`
}

/** A request through the proxy; the status, which upstream answered, the replay header and the body. */
const send = async (proxy: string, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const response = await fetch(proxy + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000)
  })
  const text = await response.text()
  return {
    status: response.status,
    upstream: response.headers.get(upstreamHeader),
    replayed: response.headers.get("idempotent-replayed"),
    retryAfter: response.headers.get("retry-after"),
    body: text === "" ? undefined : JSON.parse(text) as any
  }
}

const operatorToken = `operator-${randomUUID()}`
const token = `proxied-${randomUUID()}`
let hosts: Array<Host> = []
let proxy = ""
let receiver: Receiver.Receiver

describe.skipIf(databaseUrl === "")(`two hosts behind a round-robin proxy${databaseUrl === "" ? ` ${skippedForNoPostgres}` : ""}`, () => {
  beforeAll(async () => {
    const [storeUrl, warehouseUrl] = await Promise.all([freshDatabaseUrl(cleanups), freshDatabaseUrl(cleanups)])
    await query(warehouseUrl, "CREATE SCHEMA sales")
    await query(warehouseUrl, `CREATE TABLE sales.orders AS SELECT i AS id, (ARRAY['EU','US'])[1 + i % 2] AS region, (i % 97)::int AS amount FROM generate_series(1, 100) AS i`)
    receiver = await Receiver.start()
    cleanups.push(() => receiver.close())
    const ports = [await freePort(), await freePort()]
    const started: Array<Host> = []
    // The proxy's address is the public one: links name it, whichever host made them.
    const proxyPort = await freePort()
    // One after the other: the first migrates and creates the tenant, the second finds them.
    for (const port of ports) {
      const host = run(["serve"], {
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${proxyPort}`,
        ANALYTICS_STORE: "postgres",
        DATABASE_URL: storeUrl,
        ANALYTICS_WAREHOUSE_URL: warehouseUrl,
        ANALYTICS_RATE_LIMIT_STORE: "database",
        ANALYTICS_BOOTSTRAP_TOKEN: token,
        ANALYTICS_BOOTSTRAP_PLAN: "scale",
        ANALYTICS_OPERATOR_TOKEN: operatorToken,
        ANALYTICS_WEBHOOK_ALLOW_PRIVATE: "true",
        ANALYTICS_SCHEDULER: started.length === 0 ? "true" : "false",
        NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "",
        LOG_LEVEL: "warn"
      })
      cleanups.push(async () => void (await stop(host)))
      await healthy(host, 60_000)
      const ready = await call(host, "GET", "/v1/workspaces", token)
      if (ready.status !== 200) throw new Error(`GET /v1/workspaces: ${ready.status}\n${host.output()}`)
      started.push(host)
    }
    hosts = started
    // The proxy listens on the port the hosts were told is public (freed by freePort, taken again here).
    proxy = await roundRobin(proxyPort, ports)
  }, 120_000)

  it("rate limits hold across both: a starter tenant's hammer admits at most its burst plus the refill", async () => {
    const tenant = await send(proxy, operatorToken, "POST", "/v1/tenants", { name: "Hammered", plan: "starter" })
    expect(tenant.status, JSON.stringify(tenant.body)).toBe(201)
    const startedAt = Date.now()
    const answers = await Promise.all(Array.from({ length: 200 }, () => send(proxy, tenant.body.token, "GET", "/v1/workspaces")))
    const seconds = (Date.now() - startedAt) / 1000
    const admitted = answers.filter((a) => a.status === 200)
    const refused = answers.filter((a) => a.status === 429)
    expect(admitted.length + refused.length).toBe(200)
    // Starter: 60 at once, then one a second.
    expect(admitted.length).toBeGreaterThanOrEqual(60)
    expect(admitted.length).toBeLessThanOrEqual(60 + Math.ceil(seconds))
    // Both hosts admitted some and refused some: the limit is one, not one per host.
    for (const upstream of ["0", "1"]) {
      expect(admitted.some((a) => a.upstream === upstream), `host ${upstream} admitted none`).toBe(true)
      expect(refused.some((a) => a.upstream === upstream), `host ${upstream} refused none`).toBe(true)
    }
    for (const r of refused) expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1)
  }, 60_000)

  it("idempotency holds across both: one key sent to each host at once, then in sequence, makes one resource", async () => {
    const keys = Array.from({ length: 10 }, (_, i) => ({ key: `proxied-${i}-${randomUUID()}`, body: { name: `Proxied ${i} ${randomUUID()}` } }))
    // Each pair is two consecutive requests: the proxy sends them to different hosts.
    const pairs = await Promise.all(keys.map(({ body, key }) =>
      Promise.all([0, 1].map(() => send(proxy, token, "POST", "/v1/workspaces", body, { "idempotency-key": key })))
    ))
    const ids: Array<string> = []
    for (const pair of pairs) {
      expect(new Set(pair.map((a) => a.upstream))).toEqual(new Set(["0", "1"]))
      const created = pair.filter((a) => a.status === 201 && a.replayed === null)
      expect(created, JSON.stringify(pair)).toHaveLength(1)
      const other = pair.find((a) => a !== created[0])!
      // The other one either found it running (409) or, had it finished, replayed it.
      if (other.status === 409) expect(other.body.code).toBe("idempotency/in-progress")
      else expect(other).toMatchObject({ status: 201, replayed: "true", body: { workspace_id: created[0]!.body.workspace_id } })
      ids.push(created[0]!.body.workspace_id)
    }
    // In sequence: each key again, once to each host: both replay the one response.
    for (const [i, { body, key }] of keys.entries()) {
      const again = [await send(proxy, token, "POST", "/v1/workspaces", body, { "idempotency-key": key }), await send(proxy, token, "POST", "/v1/workspaces", body, { "idempotency-key": key })]
      expect(new Set(again.map((a) => a.upstream))).toEqual(new Set(["0", "1"]))
      for (const a of again) expect(a).toMatchObject({ status: 201, replayed: "true", body: { workspace_id: ids[i] } })
    }
    // One workspace per key.
    const names = new Set(keys.map((k) => k.body.name))
    const listed = (await send(proxy, token, "GET", "/v1/workspaces?limit=100")).body.data.filter((w: any) => names.has(w.name))
    expect(listed.map((w: any) => w.workspace_id).sort()).toEqual([...ids].sort())
  }, 60_000)

  it("webhook deliveries: both hosts run the worker, each delivery arrives once", async () => {
    const webhook = await send(proxy, token, "POST", "/v1/webhooks", { url: receiver.url("/proxied"), events: ["alert.fire"] })
    expect(webhook.status).toBe(201)
    const sends = await Promise.all(Array.from({ length: 40 }, () =>
      send(proxy, token, "POST", `/v1/webhooks/${webhook.body.webhook_id}/test`, { type: "alert.fire" })))
    expect(sends.map((s) => s.status)).toEqual(sends.map(() => 202))
    expect(new Set(sends.map((s) => s.upstream))).toEqual(new Set(["0", "1"]))
    const ours = () => receiver.received.filter((r) => r.path === "/proxied")
    await until(ours, (received) => received.length >= 40, { timeoutMillis: 30_000 })
    // Anything taken by both workers would arrive within their next polls (every second).
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const delivered = ours().map((r) => r.headers["x-service-delivery"])
    expect(delivered.length).toBe(40)
    expect(new Set(delivered)).toEqual(new Set(sends.map((s) => s.body.delivery_id)))
  }, 60_000)

  it("grant revocation: a link revoked through one host is refused by the other on its next request", async () => {
    const workspace = await send(proxy, token, "POST", "/v1/workspaces", { name: "Shared" })
    const dataset = await send(proxy, token, "POST", "/v1/datasets", { workspace_id: workspace.body.workspace_id, name: "Orders", source: { type: "postgres", schema: "sales", table: "orders" } })
    expect(dataset.status, JSON.stringify(dataset.body)).toBe(201)
    await send(proxy, token, "PATCH", `/v1/datasets/${dataset.body.dataset_id}`, { model: { ...dataset.body.model, row_level_security: [{ roles: ["admin"], all_rows: true }] } })
    const report = await send(proxy, token, "POST", "/v1/reports", {
      workspace_id: workspace.body.workspace_id,
      name: "Orders by region",
      pages: [{ name: "One", visuals: [{ id: "by_region", type: "bar", dataset_id: dataset.body.dataset_id, query: { measures: ["count"], dimensions: ["region"] }, encoding: { x: "region", y: ["count"] } }] }]
    })
    expect(report.status, JSON.stringify(report.body)).toBe(201)
    const grant = await send(proxy, token, "POST", "/v1/sharing/grants", { subject_type: "report", subject_id: report.body.report_id, principal_type: "link", actions: ["view"] })
    expect(grant.status, JSON.stringify(grant.body)).toBe(201)
    const link = new URL(grant.body.link_url)
    expect(link.origin).toBe(proxy)
    const open = (host: Host) => fetch(host.url + link.pathname, { headers: { accept: "application/json" } })
    // Open on both hosts: each serves it (and would have cached it, if anything cached grants).
    for (const host of hosts) expect((await open(host)).status).toBe(200)

    const revoked = await send(proxy, token, "DELETE", `/v1/sharing/grants/${grant.body.grant_id}`)
    expect(revoked.status).toBe(200)
    const other = hosts[1 - Number(revoked.upstream)]!
    const refused = await open(other)
    expect(refused.status).toBe(403)
    expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/)
    expect((await refused.json() as any).code).toBe("share/revoked")
    // And through the proxy, whichever host answers.
    for (let i = 0; i < 2; i++) {
      const viaProxy = await fetch(link, { headers: { accept: "application/json" } })
      expect(viaProxy.status).toBe(403)
      await viaProxy.arrayBuffer()
    }
  }, 60_000)
})
