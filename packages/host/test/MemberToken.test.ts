/**
 * Authorization inside a tenant (decision 0018) tried as a tester met it,
 * over real HTTP against the packaged host on its default store (embedded
 * PGlite on disk) with the demo data: an ordinary member's personal token
 * (`POST /v1/users` with roles ["member"], then `POST /v1/users/{id}/tokens`)
 * tries what the tester could do, and can do none of it.
 *
 * - Webhooks are the admins': a member may not list, register (for
 *   `export.succeeded` or the `audit.event` firehose), change, rotate, test
 *   or read the deliveries of any.
 * - A job is its requester's (and the admins'): another's is a 404, as an
 *   unknown id is, for its status, its result and its cancellation.
 * - `export.succeeded` names the job and its file, never a URL.
 * - Deprovisioning a user revokes their tokens and disables their webhooks:
 *   nothing is delivered to them afterwards.
 * - A member's own export is theirs to read while they may download the
 *   report; its result is refused once the grant is revoked.
 *
 * Webhooks point at a real HTTPS receiver on loopback (the test run's CA,
 * trusted by the host through `NODE_EXTRA_CA_CERTS`). The tenant is on the
 * Scale plan so that the firehose is in its plan: the member's refusal to
 * register `audit.event` is the policy's, not the plan's.
 */
import { until } from "@analytics/testing"
import { Receiver } from "@analytics/testing/webhooks"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, type Cleanups, freePort, healthy, type Host, run, settledJob, stop } from "./HostProcess.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The demo host on its default store (embedded PGlite in a fresh data
 * directory), healthy within 45 s (else the error carries its output); its
 * bootstrap admin token and the demo report. Cleanups stop it (SIGTERM, then
 * SIGKILL after 10 s: a stuck process is not left behind) and remove its data.
 */
const startDemoHost = async (env: Record<string, string>) => {
  const dataDir = mkdtempSync(join(tmpdir(), "analytics-member-token-"))
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))
  const token = `e2e-${randomUUID()}`
  const port = await freePort()
  const started = run(["serve"], {
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    ANALYTICS_DATA_DIR: dataDir,
    ANALYTICS_BOOTSTRAP_TOKEN: token,
    ANALYTICS_DEMO: "1",
    LOG_LEVEL: "warn",
    ...env
  })
  cleanups.push(async () => {
    const timer = setTimeout(() => started.process.kill("SIGKILL"), 10_000)
    await stop(started)
    clearTimeout(timer)
  })
  await healthy(started, 45_000)
  const [workspace] = (await call(started, "GET", "/v1/workspaces", token)).body.data
  const [demoReport] = (await call(started, "GET", `/v1/reports?workspace_id=${workspace.workspace_id}`, token)).body.data
  return { host: started, token, report: demoReport }
}

/** One visual of the demo report "Sales overview": a CSV of it is made in well under a second. */
const csvOfOneVisual = { format: "csv", visual_id: "revenue_by_month" } as const

/** The event body of each request the receiver got at `path`. */
const eventsAt = (receiver: Receiver.Receiver, path: string) =>
  receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body))

/** Polls until an event at `path` satisfies `predicate`, or fails after `timeoutMs`. */
const eventArrives = (receiver: Receiver.Receiver, path: string, predicate: (event: any) => boolean, timeoutMs = 15_000) =>
  until(() => eventsAt(receiver, path).find(predicate), (found) => found !== undefined, { what: `an event at ${path}`, timeoutMillis: timeoutMs })

let host: Host
let admin: string
let report: { report_id: string; name: string }
let receiver: Receiver.Receiver
/** The bootstrap admin's webhook, for `export.succeeded`. */
let adminHook: { webhook_id: string; url: string; previous_secret_expires_at: string | null; secret: string }
/** The ordinary member and their personal token. */
let member: { user_id: string; token: string }
/** The bootstrap admin's CSV export, succeeded. */
let adminJob: { job_id: string }

/** A call that must succeed; its body. */
const ok = async (method: string, path: string, token: string, body?: unknown) => {
  const response = await call(host, method, path, token, body)
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body
}

beforeAll(async () => {
  receiver = await Receiver.start()
  cleanups.push(() => receiver.close())
  const demo = await startDemoHost({
    ANALYTICS_BOOTSTRAP_PLAN: "scale",
    ANALYTICS_WEBHOOK_ALLOW_PRIVATE: "true",
    NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? ""
  })
  host = demo.host
  admin = demo.token
  report = demo.report
  expect(report.name).toBe("Sales overview")

  // As the admin: a webhook for export.succeeded, a member with a personal token, and a CSV export that succeeds.
  adminHook = await ok("POST", "/v1/webhooks", admin, { url: receiver.url("/admin"), events: ["export.succeeded"] })
  const user = await ok("POST", "/v1/users", admin, { email: "mallory@example.com", name: "Mallory", roles: ["member"] })
  expect(user.roles).toEqual(["member"])
  const issued = await ok("POST", `/v1/users/${user.user_id}/tokens`, admin)
  member = { user_id: user.user_id, token: issued.token }
  adminJob = await ok("POST", `/v1/reports/${report.report_id}/export`, admin, csvOfOneVisual)
  expect((await settledJob(host, admin, adminJob.job_id, 20_000)).status).toBe("succeeded")
  // Its event reached the admin's receiver.
  await eventArrives(receiver, "/admin", (e) => e.type === "export.succeeded" && e.data.job_id === adminJob.job_id)
}, 90_000)

describe("a member's personal token on the packaged host", () => {
  it("the member's token authenticates (so the refusals below are the policy's, not a bad token)", async () => {
    const workspaces = await call(host, "GET", "/v1/workspaces", member.token)
    expect(workspaces.status).toBe(200)
    expect(workspaces.body.data.map((w: { name: string }) => w.name)).toEqual(["Demo workspace"])
  })

  it("cannot list webhooks: 403", async () => {
    const listed = await call(host, "GET", "/v1/webhooks", member.token)
    expect(listed.status).toBe(403)
    expect(listed.body.code).toBe("auth/forbidden")
    expect(JSON.stringify(listed.body)).not.toContain(adminHook.webhook_id)
    const one = await call(host, "GET", `/v1/webhooks/${adminHook.webhook_id}`, member.token)
    expect(one.status).toBe(403)
  })

  it("cannot register a webhook for export.succeeded nor for the audit.event firehose: 403, none registered", async () => {
    for (const events of [["export.succeeded"], ["audit.event"]]) {
      const created = await call(host, "POST", "/v1/webhooks", member.token, { url: receiver.url("/member"), events })
      expect(created.status, events[0]).toBe(403)
      expect(created.body.code, events[0]).toBe("auth/forbidden")
      expect(created.body, events[0]).not.toHaveProperty("secret")
    }
    // The admin may register the firehose on this plan: the refusal above was the member's role, not the plan.
    const firehose = await call(host, "POST", "/v1/webhooks", admin, { url: receiver.url("/firehose"), events: ["audit.event"] })
    expect(firehose.status).toBe(201)
    expect((await call(host, "DELETE", `/v1/webhooks/${firehose.body.webhook_id}`, admin)).status).toBe(204)
    const all = await ok("GET", "/v1/webhooks?limit=100", admin)
    expect(all.data.map((w: { url: string }) => w.url)).not.toContain(receiver.url("/member"))
    expect(all.data.map((w: { webhook_id: string }) => w.webhook_id)).toEqual([adminHook.webhook_id])
  })

  it("cannot change the admin's webhook URL: 403, and the URL is unchanged", async () => {
    const patched = await call(host, "PATCH", `/v1/webhooks/${adminHook.webhook_id}`, member.token, { url: "https://attacker.example.com/hook" })
    expect(patched.status).toBe(403)
    expect(patched.body.code).toBe("auth/forbidden")
    const disabled = await call(host, "PATCH", `/v1/webhooks/${adminHook.webhook_id}`, member.token, { enabled: false })
    expect(disabled.status).toBe(403)
    const read = await ok("GET", `/v1/webhooks/${adminHook.webhook_id}`, admin)
    expect(read.url).toBe(receiver.url("/admin"))
    expect(read.enabled).toBe(true)
  })

  it("cannot rotate the admin's webhook secret: 403 with no secret, and no rotation happened", async () => {
    const rotated = await call(host, "POST", `/v1/webhooks/${adminHook.webhook_id}/rotate-secret`, member.token, {})
    expect(rotated.status).toBe(403)
    expect(rotated.body.code).toBe("auth/forbidden")
    expect(rotated.body).not.toHaveProperty("secret")
    expect(JSON.stringify(rotated.body)).not.toContain(adminHook.secret)
    const chosen = await call(host, "POST", `/v1/webhooks/${adminHook.webhook_id}/rotate-secret`, member.token, { secret: `whsec_${randomUUID()}${randomUUID()}` })
    expect(chosen.status).toBe(403)
    // A rotation would have started the previous secret's 24 hours.
    expect((await ok("GET", `/v1/webhooks/${adminHook.webhook_id}`, admin)).previous_secret_expires_at).toBeNull()
  })

  it("cannot read the deliveries log, one delivery, or send a test: 403", async () => {
    const log = await call(host, "GET", `/v1/webhooks/${adminHook.webhook_id}/deliveries`, member.token)
    expect(log.status).toBe(403)
    expect(log.body.code).toBe("auth/forbidden")
    expect(JSON.stringify(log.body)).not.toContain(adminJob.job_id)
    const [delivery] = (await ok("GET", `/v1/webhooks/${adminHook.webhook_id}/deliveries`, admin)).data
    expect(delivery).toBeDefined()
    expect((await call(host, "GET", `/v1/webhooks/${adminHook.webhook_id}/deliveries/${delivery.delivery_id}`, member.token)).status).toBe(403)
    const before = eventsAt(receiver, "/admin").length
    const test = await call(host, "POST", `/v1/webhooks/${adminHook.webhook_id}/test`, member.token, { type: "export.succeeded" })
    expect(test.status).toBe(403)
    await sleep(1_000)
    expect(eventsAt(receiver, "/admin").length).toBe(before)
  })

  it("cannot see, fetch the result of, or cancel the admin's job: 404 as for an unknown id; the job stays succeeded", async () => {
    const unknown = randomUUID()
    const paths = [
      ["GET", (id: string) => `/v1/jobs/${id}`],
      ["GET", (id: string) => `/v1/jobs/${id}/result`],
      ["DELETE", (id: string) => `/v1/jobs/${id}`]
    ] as const
    for (const [method, path] of paths) {
      const unknownAnswer = await call(host, method, path(unknown), member.token)
      const othersAnswer = await call(host, method, path(adminJob.job_id), member.token)
      expect(unknownAnswer.status, `${method} ${path("{unknown}")}`).toBe(404)
      expect(othersAnswer.status, `${method} ${path("{admin's}")}`).toBe(404)
      expect(othersAnswer.body.code, `${method} ${path("{admin's}")}`).toBe(unknownAnswer.body.code)
      expect(othersAnswer.body.code).toBe("resource/not-found")
      const text = JSON.stringify(othersAnswer.body)
      expect(text).not.toContain(report.report_id)
      expect(text).not.toContain("http://127.0.0.1")
    }
    const job = await ok("GET", `/v1/jobs/${adminJob.job_id}`, admin)
    expect(job.status).toBe("succeeded")
    const result = await call(host, "GET", `/v1/jobs/${adminJob.job_id}/result`, admin)
    expect(result.status).toBe(200)
    expect(typeof result.body.url).toBe("string")
  })

  it("export.succeeded, in the deliveries log and at the receiver, carries identifiers and the file's name, no URL", async () => {
    const log = await ok("GET", `/v1/webhooks/${adminHook.webhook_id}/deliveries?event_type=export.succeeded&limit=100`, admin)
    const delivered = log.data.find((d: any) => d.event.data.job_id === adminJob.job_id)
    expect(delivered).toBeDefined()
    const received = eventsAt(receiver, "/admin").find((e) => e.type === "export.succeeded" && e.data.job_id === adminJob.job_id)
    for (const event of [delivered.event, received]) {
      expect(Object.keys(event.data).sort()).toEqual(["bytes", "content_type", "filename", "format", "job_id", "report_id"])
      expect(event.data).toMatchObject({ job_id: adminJob.job_id, report_id: report.report_id, format: "csv" })
      expect(JSON.stringify(event.data)).not.toMatch(/http/i)
    }
  })

  it("a deprovisioned user's token is refused, their webhook disabled and delivered to no more, their tokens gone", async () => {
    const second = await ok("POST", "/v1/users", admin, { email: "trent@example.com", name: "Trent", roles: ["admin"] })
    const secondToken: string = (await ok("POST", `/v1/users/${second.user_id}/tokens`, admin)).token
    const hook = await ok("POST", "/v1/webhooks", secondToken, { url: receiver.url("/second"), events: ["export.succeeded"] })
    // While they are active, their webhook is delivered to.
    expect((await call(host, "POST", `/v1/webhooks/${hook.webhook_id}/test`, secondToken, { type: "export.succeeded" })).status).toBe(202)
    await eventArrives(receiver, "/second", (e) => e.type === "export.succeeded")
    expect((await ok("GET", `/v1/users/${second.user_id}/tokens`, admin)).data).toHaveLength(1)

    const deprovisioned = await ok("PATCH", `/v1/users/${second.user_id}`, admin, { status: "deprovisioned" })
    expect(deprovisioned.status).toBe("deprovisioned")

    const refused = await call(host, "GET", "/v1/workspaces", secondToken)
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe("auth/unauthenticated")
    expect((await call(host, "GET", "/v1/webhooks", secondToken)).status).toBe(401)

    const read = await ok("GET", `/v1/webhooks/${hook.webhook_id}`, admin)
    expect(read.enabled).toBe(false)
    expect(read.disabled_reason).toEqual(expect.stringMatching(/deprovisioned/i))
    const test = await call(host, "POST", `/v1/webhooks/${hook.webhook_id}/test`, admin, { type: "export.succeeded" })
    expect(test.status).toBe(409)
    expect(test.body.code).toBe("webhook/disabled")

    // A later export: its event reaches the admin's webhook, and nothing more reaches the deprovisioned user's.
    const atSecond = eventsAt(receiver, "/second").length
    const later = await ok("POST", `/v1/reports/${report.report_id}/export`, admin, csvOfOneVisual)
    expect((await settledJob(host, admin, later.job_id, 20_000)).status).toBe("succeeded")
    await eventArrives(receiver, "/admin", (e) => e.type === "export.succeeded" && e.data.job_id === later.job_id)
    await sleep(3_000)
    expect(eventsAt(receiver, "/second").length).toBe(atSecond)
    const log = await ok("GET", `/v1/webhooks/${hook.webhook_id}/deliveries?limit=100`, admin)
    expect(log.data.filter((d: any) => d.event.data?.job_id === later.job_id)).toEqual([])

    expect((await ok("GET", `/v1/users/${second.user_id}/tokens`, admin)).data).toEqual([])
  }, 60_000)

  it("a member's own export: theirs to read while they may download the report; its result refused once the grant is revoked", async () => {
    // Without a grant the member may not export the report.
    const refused = await call(host, "POST", `/v1/reports/${report.report_id}/export`, member.token, csvOfOneVisual)
    expect(refused.status).toBe(403)

    const grant = await ok("POST", "/v1/sharing/grants", admin, {
      subject_type: "report",
      subject_id: report.report_id,
      principal_type: "user",
      principal_id: member.user_id,
      actions: ["view", "download"]
    })
    const own = await call(host, "POST", `/v1/reports/${report.report_id}/export`, member.token, csvOfOneVisual)
    expect(own.status).toBe(202)
    const job = await settledJob(host, member.token, own.body.job_id, 20_000)
    expect(job.status).toBe("succeeded")
    expect((await call(host, "GET", `/v1/jobs/${own.body.job_id}`, member.token)).status).toBe(200)
    const result = await call(host, "GET", `/v1/jobs/${own.body.job_id}/result`, member.token)
    expect(result.status).toBe(200)
    expect((await fetch(result.body.url)).status).toBe(200)

    expect((await call(host, "DELETE", `/v1/sharing/grants/${grant.grant_id}`, admin)).status).toBe(200)
    const after = await call(host, "GET", `/v1/jobs/${own.body.job_id}/result`, member.token)
    expect(after.status).toBe(403)
    expect(after.body).not.toHaveProperty("url")
    // The admin still reaches it.
    expect((await call(host, "GET", `/v1/jobs/${own.body.job_id}/result`, admin)).status).toBe(200)
  }, 40_000)
})
