/**
 * `npm run bench:webhooks`: webhook deliveries from one host (the outbox on
 * PostgreSQL, the lease-based queue and the delivery worker) to a loopback
 * HTTPS receiver, against the same POSTs sent straight from a keep-alive
 * agent with nothing in between (the peer: what the network path allows).
 *
 * 1. Saturated: `BENCH_EVENTS` events published as fast as `BENCH_PUBLISHERS`
 *    concurrent transactions go (in another process, as the API's are) while
 *    the host's worker delivers; deliveries per second from the first commit
 *    to the last arrival (on a small machine both sides share the CPUs).
 * 2. Drain: the same number already committed, then the worker started:
 *    deliveries per second with nothing else running.
 * 3. Sustained (the bar): `BENCH_RATE` events a second (default 1,200) for
 *    `BENCH_SECONDS` seconds; deliveries per second from the first arrival to
 *    the last, and percentiles from each event's commit to its arrival.
 * 4. Peer: `BENCH_EVENTS` POSTs of the same bodies, `concurrency` in flight
 *    (the worker's bound), straight from an https.Agent.
 *
 * Events go to `BENCH_WEBHOOKS` webhooks (one tenant each), round-robin.
 * PostgreSQL is a throwaway server (scripts/TestPostgres.ts) unless
 * `BENCH_DATABASE_URL` names one. Bar (decision 0010): >= 1,000 deliveries/s and
 * p99 < 500 ms. Results are printed and written to bench/webhooks/last-run.json.
 */
import { SqlStores } from "@analytics/adapter-postgres"
import { HttpsTransport } from "@analytics/adapter-webhook-https"
import { EventPublisher, Events, Mailer, type Tenant, Tenants, WebhookDispatcher, Webhooks, Workers } from "@analytics/core"
import { Effect, Fiber, Layer, ManagedRuntime, Redacted } from "effect"
import { fork } from "node:child_process"
import * as Fs from "node:fs"
import * as Https from "node:https"
import * as Os from "node:os"
import * as Path from "node:path"
import { makeTestCertificates } from "../../scripts/TestCertificates.ts"
import { startTestPostgres } from "../../scripts/TestPostgres.ts"
import { writeRunRecord } from "../RunRecord.ts"

const here = import.meta.dirname
const numberFromEnv = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`)
  return value
}
const settings = {
  events: numberFromEnv("BENCH_EVENTS", 10_000),
  publishers: numberFromEnv("BENCH_PUBLISHERS", 32),
  rate: numberFromEnv("BENCH_RATE", 1200),
  seconds: numberFromEnv("BENCH_SECONDS", 10),
  webhooks: numberFromEnv("BENCH_WEBHOOKS", 8)
}
/** The delivery worker's bounds: `Workers.start` runs the dispatcher with its defaults. */
const worker = { ...WebhookDispatcher.defaults }

const round = (n: number, digits = 0) => Math.round(n * 10 ** digits) / 10 ** digits
const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]

// --- the receiver ------------------------------------------------------------------

const tls = makeTestCertificates(Fs.mkdtempSync(Path.join(Os.tmpdir(), "bench-webhooks-")))
const receiver = fork(Path.join(here, "receiver.ts"), [], {
  env: { ...process.env, TLS_KEY: tls.serverKey, TLS_CERT: tls.serverCert },
  stdio: ["ignore", "inherit", "inherit", "ipc"]
})
const receiverPort = await new Promise<number>((resolve) => receiver.once("message", (m: any) => resolve(m.port)))
const receiverUrl = `https://localhost:${receiverPort}/hook`
const report = () =>
  new Promise<{ arrivals: Array<[string, number]>; other: number }>((resolve) => {
    receiver.once("message", resolve as any)
    receiver.send({ report: true })
  })
/** Waits until `count` events have arrived (polling the receiver), returning them. */
const arrived = async (count: number, timeoutMs = 120_000) => {
  const all: Array<[string, number]> = []
  const deadline = Date.now() + timeoutMs
  while (all.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${all.length} of ${count} deliveries arrived`)
    await new Promise((resolve) => setTimeout(resolve, 50))
    all.push(...(await report()).arrivals)
  }
  return all
}

// --- ours --------------------------------------------------------------------------------

const postgres = process.env.BENCH_DATABASE_URL === undefined ? await startTestPostgres() : undefined
const databaseUrl = process.env.BENCH_DATABASE_URL ?? postgres!.url
const ca = Fs.readFileSync(tls.caCert, "utf8")

const runtime = ManagedRuntime.make(
  Layer.mergeAll(
    HttpsTransport.layer({ allowPrivate: true, ca: [ca] }),
    Mailer.Mailer.layerMemory,
    EventPublisher.EventPublisher.layer
  ).pipe(Layer.provideMerge(SqlStores.layerPg(Redacted.make(databaseUrl), { maxConnections: 20 })))
)

const tenants: Array<{ tenantId: Tenant.TenantId; workspaceId: string }> = await runtime.runPromise(Effect.gen(function*() {
  const out = []
  for (let i = 0; i < settings.webhooks; i++) {
    const { tenant } = yield* Tenants.provision({ name: `Bench ${i}`, plan: "scale" })
    yield* Webhooks.create(
      { tenantId: tenant.tenant_id, plan: "scale", owner: { userId: "bench", email: null } },
      { url: receiverUrl, events: ["export.succeeded"] }
    )
    out.push({ tenantId: tenant.tenant_id, workspaceId: crypto.randomUUID() })
  }
  return out
}))

// The publishers: their own process, as the API processes are.
const publisher = fork(Path.join(here, "publisher.ts"), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] })
const ask = <A>(message: unknown) =>
  new Promise<A>((resolve) => {
    publisher.once("message", resolve as any)
    publisher.send(message as any)
  })
await ask({ databaseUrl, tenants })
type Commits = Array<[string, number]>
const publishAll = async (n: number) => (await ask<{ commits: Commits }>({ publish: n, concurrency: settings.publishers })).commits

/** The host's webhook delivery (`Workers.start` with `webhooks` alone), until its fiber is interrupted. */
const delivering = Effect.scoped(Effect.andThen(Workers.start({ exports: false, webhooks: {}, scheduler: false }), Effect.never))
const startWorker = () => runtime.runPromise(Effect.forkDetach(delivering))
const stopWorker = (fiber: Fiber.Fiber<never>) => runtime.runPromise(Fiber.interrupt(fiber))

console.log(
  `webhook deliveries from one host on PostgreSQL to a loopback HTTPS receiver: ${settings.events} events, ` +
    `${settings.publishers} publishers, ${settings.webhooks} webhooks, worker ${worker.concurrency} in flight ` +
    `(${worker.perWebhook} per webhook); node ${process.version}, ${Os.cpus().length} CPUs, load ${Os.loadavg().map((n) => n.toFixed(2)).join(" ")}`
)

// 1. saturated
let fiber = await startWorker()
await report()
const saturatedStart = Date.now()
const published = await publishAll(settings.events)
const publishSeconds = (Date.now() - saturatedStart) / 1000
const saturatedArrivals = await arrived(settings.events)
const saturatedSeconds = (Math.max(...saturatedArrivals.map(([, at]) => at)) - saturatedStart) / 1000
const saturatedLatency = (() => {
  const commits = new Map(published)
  return saturatedArrivals.map(([id, at]) => at - commits.get(id)!).sort((a, b) => a - b)
})()
await stopWorker(fiber)

// 2. drain (and publishing alone)
const publishOnlyStart = Date.now()
await publishAll(settings.events)
const publishOnlySeconds = (Date.now() - publishOnlyStart) / 1000
await report()
const drainStart = Date.now()
fiber = await startWorker()
const drainArrivals = await arrived(settings.events)
const drainSeconds = (Math.max(...drainArrivals.map(([, at]) => at)) - drainStart) / 1000

// 3. sustained: a steady offered rate
await report()
const offered = (await ask<{ commits: Commits }>({ paced: settings.rate * settings.seconds, rate: settings.rate })).commits
const sustainedArrivals = await arrived(offered.length)
const sustainedSpan = (Math.max(...sustainedArrivals.map(([, at]) => at)) - Math.min(...sustainedArrivals.map(([, at]) => at))) / 1000
const sustainedLatency = (() => {
  const commits = new Map(offered)
  return sustainedArrivals.map(([id, at]) => at - commits.get(id)!).sort((a, b) => a - b)
})()
await stopWorker(fiber)
await runtime.dispose()

// 4. peer: the same POSTs straight from an agent
const agent = new Https.Agent({ keepAlive: true, maxSockets: worker.perWebhook * settings.webhooks, ca: [ca] })
const body = JSON.stringify({ id: "", type: "export.succeeded", created_at: new Date().toISOString(), workspace_id: "w", data: Events.examples["export.succeeded"] })
const post = (i: number) =>
  new Promise<void>((resolve, reject) => {
    const payload = body.replace('"id":""', `"id":"peer-${i}"`)
    const req = Https.request(receiverUrl, {
      method: "POST",
      agent,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
    }, (res) => {
      res.resume()
      res.on("end", resolve)
    })
    req.on("error", reject)
    req.end(payload)
  })
await report()
const peerStart = Date.now()
let next = 0
await Promise.all(Array.from({ length: worker.concurrency }, async () => {
  while (next < settings.events) await post(next++)
}))
const peerSeconds = (Date.now() - peerStart) / 1000
await report()
agent.destroy()

// --- report ---------------------------------------------------------------------------------

const figures = {
  saturated: {
    deliveriesPerSecond: round(settings.events / saturatedSeconds),
    publishedPerSecond: round(settings.events / publishSeconds),
    latencyMs: { p50: percentile(saturatedLatency, 50), p99: percentile(saturatedLatency, 99) }
  },
  drain: { deliveriesPerSecond: round(settings.events / drainSeconds) },
  publishOnly: { eventsPerSecond: round(settings.events / publishOnlySeconds) },
  sustained: {
    rate: settings.rate,
    events: offered.length,
    deliveriesPerSecond: round((offered.length - 1) / sustainedSpan),
    committedPerSecond: round(
      (offered.length - 1) / ((Math.max(...offered.map(([, at]) => at)) - Math.min(...offered.map(([, at]) => at))) / 1000)
    ),
    latencyMs: {
      p50: percentile(sustainedLatency, 50),
      p90: percentile(sustainedLatency, 90),
      p99: percentile(sustainedLatency, 99),
      max: sustainedLatency[sustainedLatency.length - 1]
    }
  },
  peer: { postsPerSecond: round(settings.events / peerSeconds) }
}
const ratio = (a: number, b: number) => `${round(a / b, 2)}x`
console.table({
  "saturated (publish + deliver)": { "per second": figures.saturated.deliveriesPerSecond, "vs peer": ratio(figures.saturated.deliveriesPerSecond, figures.peer.postsPerSecond), "p50 ms": figures.saturated.latencyMs.p50, "p99 ms": figures.saturated.latencyMs.p99 },
  "publish only (no worker)": { "per second": figures.publishOnly.eventsPerSecond },
  "drain (deliver only)": { "per second": figures.drain.deliveriesPerSecond, "vs peer": ratio(figures.drain.deliveriesPerSecond, figures.peer.postsPerSecond) },
  [`sustained: ${settings.rate}/s offered for ${settings.seconds} s`]: {
    "per second": figures.sustained.deliveriesPerSecond,
    "vs peer": ratio(figures.sustained.deliveriesPerSecond, figures.peer.postsPerSecond),
    "p50 ms": figures.sustained.latencyMs.p50,
    "p99 ms": figures.sustained.latencyMs.p99
  },
  "peer: bare POSTs from an https.Agent": { "per second": figures.peer.postsPerSecond, "vs peer": "1x" }
})
const bar = figures.sustained.deliveriesPerSecond >= 1000 && figures.sustained.latencyMs.p99 < 500
console.log(
  `committed ${figures.sustained.committedPerSecond}/s of the ${settings.rate}/s offered in the sustained run, ` +
    `${figures.saturated.publishedPerSecond}/s in the saturated one; ` +
    `bar (>= 1,000 deliveries/s sustained, p99 commit to arrival < 500 ms): ${bar ? "met" : "NOT met"}`
)
console.log(`written to ${writeRunRecord(here, { settings, worker: { concurrency: worker.concurrency, perWebhook: worker.perWebhook }, ...figures, barMet: bar })}`)

receiver.disconnect()
publisher.disconnect()
await postgres?.stop()
Fs.rmSync(tls.dir, { recursive: true, force: true })
