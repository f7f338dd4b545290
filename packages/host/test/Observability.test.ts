/**
 * Observability of the packaged host, as an operator sees it: the host
 * process with `ANALYTICS_METRICS_PORT`/`_TOKEN` and the standard `OTEL_*`
 * variables, an OTLP/HTTP collector started here on loopback (a small
 * `node:http` server taking `/v1/traces` and `/v1/metrics` as JSON), a real
 * HTTPS webhook receiver. After ordinary requests, a 404, an export, two
 * webhook deliveries and a burst past the starter plan's limit: `/metrics`
 * scraped over a socket shows the counters moved with the right labels (and
 * no ids in them), the collector received the request spans and the
 * metrics, and request ids are on responses, in problem bodies and in the
 * host's log lines.
 */
import { until } from "@analytics/testing"
import { Receiver } from "@analytics/testing/webhooks"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, describe, expect, it } from "vitest"
import { call, type Cleanups, demoHost, freePort, run, settledJob } from "./HostProcess.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

interface Collector {
  readonly url: string
  readonly traces: Array<any>
  readonly metrics: Array<any>
  /** The `x-collector-key` header of each export. */
  readonly keys: Array<string | undefined>
}

/** An OTLP/HTTP collector on loopback that keeps every JSON export it is sent. */
const collector = async (): Promise<Collector> => {
  const traces: Array<any> = []
  const metrics: Array<any> = []
  const keys: Array<string | undefined> = []
  const server: Server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      keys.push(request.headers["x-collector-key"] as string | undefined)
      if (request.url === "/v1/traces") traces.push(body)
      else if (request.url === "/v1/metrics") metrics.push(body)
      response.writeHead(request.url === "/v1/traces" || request.url === "/v1/metrics" ? 200 : 404, { "content-type": "application/json" })
      response.end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, traces, metrics, keys }
}

/** One sample of the Prometheus text format: name, labels, value. */
interface Sample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

/** Parses Prometheus text (0.0.4): comments skipped, every sample line checked. */
const parse = (text: string): Array<Sample> =>
  text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).map((line) => {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (match === null) throw new Error(`Not a Prometheus sample: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, key, value] of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!
    return { name: match[1]!, labels, value: Number(match[3]) }
  })

/** The value of the sample with this name and (at least) these labels; 0 when there is none. */
const valueOf = (samples: ReadonlyArray<Sample>, name: string, labels: Record<string, string>): number =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? 0

/** Polls until `check` holds, or fails after `timeoutMs`. */
const eventually = <A>(what: string, get: () => Promise<A> | A, check: (a: A) => boolean, timeoutMs = 20_000): Promise<A> =>
  until(get, check, { what, timeoutMillis: timeoutMs, intervalMillis: 200 })

/** Every span the collector received, with its attributes as a record. */
const spansOf = (c: Collector) =>
  c.traces.flatMap((t) => t.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans))).map((span: any) => ({
    name: span.name as string,
    kind: span.kind as number,
    attributes: Object.fromEntries(span.attributes.map((a: any) => [a.key, Object.values(a.value)[0]]))
  }))

const metricNamesOf = (c: Collector) =>
  new Set(c.metrics.flatMap((m) => m.resourceMetrics.flatMap((r: any) => r.scopeMetrics.flatMap((s: any) => s.metrics.map((x: any) => x.name)))))

describe("observability of the packaged host", () => {
  it("/metrics, OTLP traces and metrics, request ids in responses, problems and logs", async () => {
    const otlp = await collector()
    const hook = await Receiver.start()
    cleanups.push(() => hook.close())
    const metricsPort = await freePort()
    const metricsToken = "scrape-me"
    const { host, report, token } = await demoHost(cleanups, (port) => `http://127.0.0.1:${port}`, {
      // Starter: a burst of 60 reads, so that a burst past it is refused.
      ANALYTICS_BOOTSTRAP_PLAN: "starter",
      // Info: a mail logged for want of a mail service is an info line (decision 0015).
      LOG_LEVEL: "info",
      ANALYTICS_WEBHOOK_ALLOW_PRIVATE: "true",
      NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "",
      ANALYTICS_METRICS_PORT: String(metricsPort),
      ANALYTICS_METRICS_TOKEN: metricsToken,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=secret%20value",
      OTEL_SERVICE_NAME: "analytics-under-test",
      OTEL_METRIC_EXPORT_INTERVAL: "500",
      OTEL_BSP_SCHEDULE_DELAY: "200"
    })

    // Request ids: generated, or the client's when sane.
    const fetchWith = (path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
      fetch(host.url + path, { ...init, headers: { authorization: `Bearer ${token}`, ...headers } })
    const plain = await fetchWith("/v1/workspaces")
    expect(plain.status).toBe(200)
    expect(plain.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
    expect((await fetchWith("/v1/workspaces", { "x-request-id": "client-chosen-1" })).headers.get("x-request-id")).toBe("client-chosen-1")
    const tooLong = (await fetchWith("/v1/workspaces", { "x-request-id": "x".repeat(129) })).headers.get("x-request-id")
    expect(tooLong).toMatch(/^[0-9a-f-]{36}$/)
    expect((await fetchWith("/v1/workspaces", { "x-request-id": "has space" })).headers.get("x-request-id")).not.toBe("has space")

    // A problem carries the request's id, RFC 9457 members kept.
    const missingId = "0190a000-0000-7000-8000-00000000abcd"
    const missing = await fetchWith(`/v1/webhooks/${missingId}`, { "x-request-id": "problem-req-1" })
    expect(missing.status).toBe(404)
    expect(missing.headers.get("content-type")).toContain("application/problem+json")
    expect(await missing.json()).toMatchObject({ status: 404, code: "resource/not-found", request_id: "problem-req-1" })
    const unknownRoute = await fetchWith(`/v1/nowhere/${missingId}`)
    expect((await unknownRoute.json()).request_id).toBe(unknownRoute.headers.get("x-request-id"))

    // The host's log lines written while a request is served carry its id (no mail service: the invitation is logged).
    const invited = await fetchWith("/v1/invitations", { "x-request-id": "invite-req-1", "content-type": "application/json" }, {
      method: "POST",
      body: JSON.stringify({ email: "observed@example.com" })
    })
    expect(invited.status).toBe(201)
    const logLine = await eventually("the invitation's log line", () =>
      host.output().split("\n").filter((line) => line.includes("observed@example.com")), (lines) => lines.length > 0)
    expect(JSON.parse(logLine[0]!)).toMatchObject({ request_id: "invite-req-1" })

    // A webhook delivery of the export's event (success), then one its receiver refuses for good (disabled).
    const webhook = await call(host, "POST", "/v1/webhooks", token, { url: hook.url(), events: ["export.succeeded", "alert.fire"] })
    expect(webhook.status).toBe(201)
    const visual = report.pages[0].visuals.find((v: any) => v.type !== "kpi") ?? report.pages[0].visuals[0]
    const queued = await call(host, "POST", `/v1/reports/${report.report_id}/export`, token, { format: "csv", visual_id: visual.id })
    expect(queued.status).toBe(202)
    expect((await settledJob(host, token, queued.body.job_id)).status).toBe("succeeded")
    // A visual's query: a dataset query, timed and traced.
    expect((await call(host, "POST", `/v1/reports/${report.report_id}/visuals/${visual.id}/query`, token, {})).status).toBe(200)
    // A question in words, answered by the built-in answerer.
    const asked = await call(host, "POST", "/v1/ai/ask", token, { question: "total amount by region", dataset_id: visual.dataset_id })
    expect(asked.body.status).toBe("answered")
    await hook.waitFor(1, 20_000)
    hook.answer({ status: 410 })
    expect((await call(host, "POST", `/v1/webhooks/${webhook.body.webhook_id}/test`, token, { type: "alert.fire" })).status).toBeLessThan(300)
    await hook.waitFor(2, 20_000)

    // A burst past the plan's 60 reads: some are refused.
    const burst = await Promise.all(Array.from({ length: 90 }, () => fetchWith("/v1/workspaces").then(async (r) => (await r.arrayBuffer(), r.status))))
    const refused = burst.filter((status) => status === 429).length
    expect(refused).toBeGreaterThan(0)

    // /metrics on its own port: the token is asked for.
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
    const anonymous = await fetch(metricsUrl)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get("content-type")).toContain("application/problem+json")
    expect((await fetch(`${host.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).status).toBe(404)
    const scrape = async () => {
      const response = await fetch(metricsUrl, { headers: { authorization: `Bearer ${metricsToken}` } })
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
      return { text: await response.text(), samples: [] as Array<Sample> }
    }
    // The deliveries are counted once settled, the queue sampled every 5 s: wait for both.
    const { samples, text } = await eventually("the metrics", async () => {
      const s = await scrape()
      return { ...s, samples: parse(s.text) }
    }, ({ samples }) =>
      valueOf(samples, "analytics_webhook_deliveries_total", { outcome: "disabled" }) >= 1 &&
      samples.some((s) => s.name === "analytics_export_jobs" && s.labels.state === "queued"))

    const requests = (labels: Record<string, string>) => valueOf(samples, "analytics_http_requests_total", labels)
    expect(requests({ method: "GET", route: "/v1/workspaces", status: "200" })).toBeGreaterThanOrEqual(4)
    expect(requests({ method: "GET", route: "/v1/workspaces", status: "429" })).toBe(refused)
    expect(requests({ method: "GET", route: "/v1/webhooks/:webhook_id", status: "404" })).toBe(1)
    // /v1/nowhere/… and /metrics asked on the API's port: one series for both.
    expect(requests({ method: "GET", route: "unmatched", status: "404" })).toBe(2)
    expect(requests({ method: "POST", route: "/v1/reports/:id/export", status: "202" })).toBe(1)
    expect(valueOf(samples, "analytics_http_request_duration_seconds_count", { method: "GET", route: "/v1/workspaces", status: "200" }))
      .toBe(requests({ method: "GET", route: "/v1/workspaces", status: "200" }))
    expect(valueOf(samples, "analytics_rate_limit_rejections_total", { class: "read", code: "rate-limit/burst-exceeded" })).toBe(refused)
    expect(valueOf(samples, "analytics_export_duration_seconds_count", { format: "csv", outcome: "succeeded" })).toBe(1)
    expect(valueOf(samples, "analytics_webhook_deliveries_total", { outcome: "success" })).toBe(1)
    expect(valueOf(samples, "analytics_webhook_attempt_duration_seconds_count", { outcome: "success" })).toBe(1)
    expect(valueOf(samples, "analytics_export_jobs", { state: "running" })).toBe(0)
    expect(valueOf(samples, "analytics_dataset_query_duration_seconds_count", { outcome: "succeeded" })).toBeGreaterThanOrEqual(2)
    expect(valueOf(samples, "analytics_ai_questions_total", { outcome: "answered" })).toBe(1)
    // No ids in labels: not the tenant's token, not a resource id, not a raw path.
    expect(text).not.toContain(missingId)
    expect(text).not.toContain(queued.body.job_id)
    expect(text).not.toContain(webhook.body.webhook_id)
    expect(text).not.toContain(token)

    // OTLP: a server span per request named by its route, with route and status; the export's span; the metrics.
    // Spans arrive in batches, each when its own work ended: wait for every kind the checks below read.
    const spans = await eventually("the request spans", () => spansOf(otlp), (spans) =>
      ["GET /v1/webhooks/:webhook_id", "export.run", "webhook.attempt", "dataset.query"].every((name) => spans.some((s) => s.name === name)))
    const notFound = spans.find((s) => s.name === "GET /v1/webhooks/:webhook_id")!
    expect(notFound.attributes).toMatchObject({ "http.route": "/v1/webhooks/:webhook_id", "http.request.method": "GET" })
    expect(Number(notFound.attributes["http.response.status_code"])).toBe(404)
    expect(spans.find((s) => s.name === "export.run")!.attributes).toMatchObject({ "export.format": "csv" })
    expect(spans.some((s) => s.name === "webhook.attempt")).toBe(true)
    expect(spans.some((s) => s.name === "dataset.query")).toBe(true)
    const resource = otlp.traces[0].resourceSpans[0].resource.attributes
    expect(resource).toContainEqual({ key: "service.name", value: { stringValue: "analytics-under-test" } })
    // A batch exported before the export and the visual's query ran lacks their histograms: wait for one exported after both.
    const names = await eventually("the exported metrics", () => metricNamesOf(otlp), (names) =>
      names.has("analytics_http_requests_total") && names.has("analytics_export_duration_seconds") &&
      names.has("analytics_dataset_query_duration_seconds"))
    expect([...names].filter((name) => name.startsWith("analytics_dataset_query"))).toEqual(["analytics_dataset_query_duration_seconds"])
    // OTEL_EXPORTER_OTLP_HEADERS, percent-decoded, on every export.
    expect(new Set(otlp.keys)).toEqual(new Set(["secret value"]))
  }, 180_000)

  it("refuses bad observability variables at start, naming each", async () => {
    const bad = run(["serve"], {
      PORT: String(await freePort()),
      OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_HEADERS: "just-a-key",
      ANALYTICS_METRICS_PORT: "99999"
    })
    expect(await bad.exited).toBe(1)
    for (const name of ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_HEADERS", "ANALYTICS_METRICS_PORT"]) {
      expect(bad.output()).toContain(name)
    }
    const port = await freePort()
    const same = run(["serve"], { PORT: String(port), ANALYTICS_METRICS_PORT: String(port) })
    expect(await same.exited).toBe(1)
    expect(same.output()).toContain("ANALYTICS_METRICS_PORT must differ from PORT")
  }, 60_000)
})
