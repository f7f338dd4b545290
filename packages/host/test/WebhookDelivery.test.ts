/**
 * Webhook delivery in the packaged host, as a user runs it: a `kill -9` of
 * the host mid-schedule loses nothing (a restarted host, or any other on the
 * database, resumes the schedule and the deliveries that were in flight),
 * and the egress guard is on unless private addresses are allowed.
 * Receivers are real HTTPS servers on loopback, trusted through
 * NODE_EXTRA_CA_CERTS as an operator would trust a private CA.
 */
import { until as poll } from "@analytics/testing"
import { databaseUrl, skippedForNoPostgres } from "@analytics/testing/postgres"
import { SmtpServer } from "@analytics/testing/smtp"
import { Receiver } from "@analytics/testing/webhooks"
import { Effect, Exit, Scope } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import { call, type Cleanups, freePort, freshDatabaseUrl, healthy, type Host, run, stop } from "./HostProcess.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const database = () => freshDatabaseUrl(cleanups)

const receiver = async () => {
  const r = await Receiver.start()
  cleanups.push(() => r.close())
  return r
}

const startHost = async (env: Record<string, string>): Promise<Host> => {
  const host = run(["serve"], {
    PORT: String(await freePort()),
    NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "",
    LOG_LEVEL: "warn",
    ...env
  })
  cleanups.push(async () => void (await stop(host)))
  await healthy(host)
  return host
}

/** Polls `path` until `check` holds on its body. */
const until = (host: Host, token: string, path: string, check: (body: any) => boolean, timeoutMs = 30_000) =>
  poll(async () => (await call(host, "GET", path, token)).body, check, { what: `${path}\n${host.output()}`, timeoutMillis: timeoutMs })

describe.skipIf(databaseUrl === "")(`webhook delivery survives kill -9 (PostgreSQL) ${databaseUrl === "" ? skippedForNoPostgres : ""}`, () => {
  it("deliveries waiting for a retry and deliveries in flight are all delivered after a restart", async () => {
    const url = await database()
    const token = `webhooks-${randomUUID()}`
    const env = {
      ANALYTICS_STORE: "postgres",
      DATABASE_URL: url,
      ANALYTICS_BOOTSTRAP_TOKEN: token,
      ANALYTICS_WEBHOOK_ALLOW_PRIVATE: "true",
      ANALYTICS_WEBHOOK_LEASE_SECONDS: "6"
    }
    const hook = await receiver()
    // The first three attempts fail (retried 5 s later); the next two hang until the host dies.
    hook.answer((request) => (hook.received.indexOf(request) < 3 ? { status: 503 } : "hang"))
    const first = await startHost(env)
    const created = await call(first, "POST", "/v1/webhooks", token, { url: hook.url(), events: ["alert.fire"] })
    expect(created.status).toBe(201)
    const webhookId = created.body.webhook_id
    const sent: Array<string> = []
    for (let i = 0; i < 5; i++) {
      const test = await call(first, "POST", `/v1/webhooks/${webhookId}/test`, token, { type: "alert.fire" })
      expect(test.status).toBe(202)
      sent.push(test.body.event_id)
    }
    await hook.waitFor(5)
    await until(first, token, `/v1/webhooks/${webhookId}/deliveries?status=retrying`, (body) => body.data.length === 3)

    first.process.kill("SIGKILL")
    expect(await first.exited).toBe("SIGKILL")
    hook.answer({ status: 200 })

    const second = await startHost(env)
    const done = await until(
      second,
      token,
      `/v1/webhooks/${webhookId}/deliveries?status=succeeded`,
      (body) => body.data.length === 5
    )
    expect(new Set(done.data.map((d: any) => d.event_id))).toEqual(new Set(sent))
    const attempts = done.data.map((d: any) => d.attempts.map((a: any) => a.status_code).join(",")).sort()
    // Retried ones keep their failed attempt in the log; the hung attempts died with the host and were never settled.
    expect(attempts).toEqual(["200", "200", "503,200", "503,200", "503,200"])
    const delivered = hook.received.filter((r) => hook.received.indexOf(r) >= 5).map((r) => JSON.parse(r.body).id)
    expect(new Set(delivered)).toEqual(new Set(sent))
  }, 90_000)
})

describe.skipIf(databaseUrl === "")(`two hosts share the deliveries of one database ${databaseUrl === "" ? skippedForNoPostgres : ""}`, () => {
  it("every delivery is sent once, whichever host published it", async () => {
    const url = await database()
    const token = `shared-${randomUUID()}`
    const env = { ANALYTICS_STORE: "postgres", DATABASE_URL: url, ANALYTICS_BOOTSTRAP_TOKEN: token, ANALYTICS_WEBHOOK_ALLOW_PRIVATE: "true" }
    const hook = await receiver()
    const hosts = [await startHost(env), await startHost(env)]
    const created = await call(hosts[0], "POST", "/v1/webhooks", token, { url: hook.url(), events: ["alert.fire"] })
    const sends = await Promise.all(Array.from({ length: 100 }, (_, i) =>
      call(hosts[i % 2], "POST", `/v1/webhooks/${created.body.webhook_id}/test`, token, { type: "alert.fire" })))
    expect(sends.every((r) => r.status === 202)).toBe(true)
    await hook.waitFor(100, 30_000)
    // Nothing more arrives: no delivery was taken by both workers.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const ids = hook.received.map((r) => r.headers["x-service-delivery"])
    expect(ids.length).toBe(100)
    expect(new Set(ids)).toEqual(new Set(sends.map((r) => r.body.delivery_id)))
  }, 60_000)
})

describe("webhook egress in the host", () => {
  it("refuses a receiver on loopback unless ANALYTICS_WEBHOOK_ALLOW_PRIVATE=true, and publishes the egress addresses", async () => {
    const token = `egress-${randomUUID()}`
    const hook = await receiver()
    const host = await startHost({
      ANALYTICS_STORE: "memory",
      ANALYTICS_BOOTSTRAP_TOKEN: token,
      ANALYTICS_WEBHOOK_EGRESS_IPS: "203.0.113.7, 2001:db8::7"
    })
    const config = await call(host, "GET", "/api/config/public")
    expect(config.body.webhooks).toEqual({ egress_ips: ["203.0.113.7", "2001:db8::7"] })
    for (const target of [hook.url(), `https://127.0.0.1:${hook.port}/hook`]) {
      const created = await call(host, "POST", "/v1/webhooks", token, { url: target, events: ["alert.fire"] })
      const webhookId = created.body.webhook_id
      await call(host, "POST", `/v1/webhooks/${webhookId}/test`, token, { type: "alert.fire" })
      const log = await until(host, token, `/v1/webhooks/${webhookId}/deliveries`, (body) => body.data[0]?.attempts.length === 1)
      // Failed at once, never retried, and the reason names no address (decision 0010).
      expect(log.data[0].status).toBe("failed")
      expect(log.data[0].next_attempt_at).toBe(null)
      expect(log.data[0].attempts[0].status_code).toBe(null)
      expect(log.data[0].attempts[0].error).toBe("refused: the URL's host is not a public address")
    }
    expect(hook.received.length).toBe(0)
  }, 60_000)

  it("a webhook disabled by a 410 e-mails its owner through the configured SMTP server", async () => {
    const token = `mail-${randomUUID()}`
    const hook = await receiver()
    hook.answer({ status: 410 })
    const scope = Effect.runSync(Scope.make())
    cleanups.push(() => Effect.runPromise(Scope.close(scope, Exit.void)))
    const smtp = await Effect.runPromise(Scope.provide(SmtpServer.start(), scope))
    const host = await startHost({
      ANALYTICS_STORE: "memory",
      ANALYTICS_BOOTSTRAP_TOKEN: token,
      ANALYTICS_BOOTSTRAP_EMAIL: "Owner@Example.com",
      ANALYTICS_WEBHOOK_ALLOW_PRIVATE: "true",
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: "Analytics <noreply@analytics.test>"
    })
    const created = await call(host, "POST", "/v1/webhooks", token, { url: hook.url(), events: ["alert.fire"] })
    await call(host, "POST", `/v1/webhooks/${created.body.webhook_id}/test`, token, { type: "alert.fire" })
    await poll(() => smtp.received.length, (n) => n > 0, { timeoutMillis: 15_000, intervalMillis: 50 })
    expect(smtp.received.map((m) => m.to)).toEqual([["owner@example.com"]])
    expect(smtp.received[0].raw).toContain(created.body.webhook_id)
    const disabled = await call(host, "GET", `/v1/webhooks/${created.body.webhook_id}`, token)
    expect(disabled.body.enabled).toBe(false)
  }, 60_000)

  it("a bad webhook setting stops the host at start with a clear message", async () => {
    const host = run(["serve"], {
      PORT: String(await freePort()),
      ANALYTICS_STORE: "memory",
      ANALYTICS_WEBHOOK_EGRESS_IPS: "203.0.113.7, not-an-ip",
      ANALYTICS_WEBHOOK_LEASE_SECONDS: "2"
    })
    expect(await host.exited).not.toBe(0)
    expect(host.output()).toMatch(/ANALYTICS_WEBHOOK_EGRESS_IPS.*not-an-ip/)
    expect(host.output()).toMatch(/ANALYTICS_WEBHOOK_LEASE_SECONDS/)
  })
})
