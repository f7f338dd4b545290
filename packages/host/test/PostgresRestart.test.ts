/**
 * PostgreSQL stopped and started again under a steady stream of requests, as
 * an operator restarting it (or a failover) would: while it is down every
 * answer is a `503 application/problem+json` (never another 5xx, never a
 * body-less error, never a hang past a deadline); once it is back the same
 * host serves again without a restart, and hears NOTIFY again (a plan change
 * made through another host reaches it).
 *
 * The server is a dedicated throwaway PostgreSQL (scripts/TestPostgres.ts),
 * not the run's shared one, so that stopping it disturbs no other test.
 */
import { findPostgresBin, startTestPostgres, type TestPostgres } from "../../../scripts/TestPostgres.ts"
import { randomUUID } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import { call, type Cleanups, freePort, healthy, type Host, run, stop } from "./HostProcess.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** No answer within this long counts as a hang. */
const deadlineMs = 15_000

/** One answer of the stream: its status, media type and problem code, or the failure to answer in time. */
interface Answer {
  readonly at: number
  readonly what: string
  readonly status: number | "no answer"
  readonly contentType: string | null
  readonly code: string | undefined
}

const send = async (host: Host, token: string, what: string, method: string, path: string, body?: unknown): Promise<Answer> => {
  const at = Date.now()
  try {
    const response = await fetch(host.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(deadlineMs)
    })
    const text = await response.text()
    const contentType = response.headers.get("content-type")
    let code: string | undefined
    if (contentType?.startsWith("application/problem+json")) code = JSON.parse(text).code
    return { at, what, status: response.status, contentType, code }
  } catch (error) {
    return { at, what, status: "no answer", contentType: null, code: String(error) }
  }
}

/**
 * Sends two reads and a write every `everyMs` until
 * `stopped()`; resolves every answer (the last ones awaited).
 */
const stream = (host: Host, token: string, stopped: () => boolean, everyMs = 100) => {
  const pending: Array<Promise<Answer>> = []
  const loop = (async () => {
    for (let i = 0; !stopped(); i++) {
      pending.push(
        i % 3 === 0
          ? send(host, token, "list workspaces", "GET", "/v1/workspaces")
          : i % 3 === 1
          ? send(host, token, "create a workspace", "POST", "/v1/workspaces", { name: `Stream ${randomUUID()}` })
          : send(host, token, "list users", "GET", "/v1/users?limit=5")
      )
      await new Promise((resolve) => setTimeout(resolve, everyMs))
    }
  })()
  return loop.then(() => Promise.all(pending))
}

const describeAnswers = (answers: ReadonlyArray<Answer>) =>
  answers.map((a) => `${a.what}: ${a.status} ${a.contentType ?? ""} ${a.code ?? ""}`).join("\n")

describe.skipIf(findPostgresBin() === undefined)("PostgreSQL restarted under load", () => {
  it("503 problems while it is down, served again by the same hosts once it is back, NOTIFY heard again", async () => {
    const postgres: TestPostgres = await startTestPostgres()
    cleanups.push(() => postgres.stop())
    const token = `restart-${randomUUID()}`
    const operatorToken = `operator-${randomUUID()}`
    const hosts: Array<Host> = []
    // Two hosts: the stream goes to the first; the second changes a plan afterwards, which the first must hear of.
    for (let i = 0; i < 2; i++) {
      const host = run(["serve"], {
        PORT: String(await freePort()),
        ANALYTICS_STORE: "postgres",
        DATABASE_URL: postgres.url,
        ANALYTICS_RATE_LIMIT_STORE: "database",
        ANALYTICS_BOOTSTRAP_TOKEN: token,
        ANALYTICS_BOOTSTRAP_PLAN: "scale",
        ANALYTICS_OPERATOR_TOKEN: operatorToken,
        LOG_LEVEL: "warn"
      })
      cleanups.push(async () => void (await stop(host)))
      await healthy(host, 60_000)
      // /healthz is liveness only: an API request waits until storage is initialised, so both hosts are ready before PostgreSQL stops.
      const ready = await call(host, "GET", "/v1/workspaces", token)
      expect(ready.status, host.output()).toBe(200)
      hosts.push(host)
    }
    const [host, other] = hosts as [Host, Host]

    // Up: two seconds of the stream, all served.
    let phase: "up" | "down" | "back" | "done" = "up"
    const up = stream(host, token, () => phase !== "up")
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    phase = "down"
    const upAnswers = await up
    expect(upAnswers.filter((a) => a.status !== 200 && a.status !== 201), describeAnswers(upAnswers)).toEqual([])

    // Down: the stream goes on for five seconds while PostgreSQL is stopped.
    await postgres.halt()
    const down = stream(host, token, () => phase !== "down")
    await new Promise((resolve) => setTimeout(resolve, 5_000))
    phase = "back"
    const downAnswers = await down
    const refused = downAnswers.filter((a) => a.status !== 200 && a.status !== 201)
    expect(refused.length, describeAnswers(downAnswers)).toBeGreaterThan(0)
    for (const answer of refused) {
      expect(answer, describeAnswers(downAnswers)).toMatchObject({
        status: 503,
        contentType: expect.stringMatching(/^application\/problem\+json/),
        code: "service/unavailable"
      })
    }

    // Back: PostgreSQL starts again; the same process serves again by itself.
    await postgres.resume()
    const back = stream(host, token, () => phase !== "back")
    let recovered: Answer | undefined
    const deadline = Date.now() + 30_000
    while (recovered === undefined && Date.now() < deadline) {
      const probe = await send(host, token, "probe", "GET", "/v1/workspaces")
      if (probe.status === 200) recovered = probe
      else await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(recovered, host.output()).toBeDefined()
    // Once one request succeeds, the stream is served for two seconds without a failure.
    const recoveredAt = Date.now()
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    phase = "done"
    const backAnswers = (await back).filter((a) => a.at >= recoveredAt)
    expect(backAnswers.length).toBeGreaterThan(5)
    expect(backAnswers.filter((a) => a.status !== 200 && a.status !== 201), describeAnswers(backAnswers)).toEqual([])
    // The writes made while it was up are there; none made while it was down.
    const names = new Set<string>()
    for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
      const page: { status: number; body: any } = await call(host, "GET", `/v1/workspaces?limit=100${cursor === null ? "" : `&cursor=${cursor}`}`, token)
      expect(page.status).toBe(200)
      for (const w of page.body.data) if (w.name.startsWith("Stream ")) names.add(w.name)
      cursor = page.body.next_cursor ?? null
    }
    const created = (answers: ReadonlyArray<Answer>) => answers.filter((a) => a.what === "create a workspace" && a.status === 201).length
    expect(names.size).toBe(created(upAnswers) + created(downAnswers) + created(await back))

    // Both hosts listen again: a plan changed through the other host reaches this one by NOTIFY, not only after its 30 s cache.
    const tenant = await call(other, "POST", "/v1/tenants", operatorToken, { name: "Moving", plan: "starter" })
    expect(tenant.status, JSON.stringify(tenant.body)).toBe(201)
    const burstAt = async (h: Host) => {
      const response = await fetch(`${h.url}/v1/workspaces`, { headers: { authorization: `Bearer ${tenant.body.token}` } })
      await response.arrayBuffer()
      return response.headers.get("x-ratelimit-limit-burst")
    }
    expect(await burstAt(host)).toBe("60")
    expect((await call(other, "PATCH", `/v1/tenants/${tenant.body.tenant_id}`, operatorToken, { plan: "scale" })).status).toBe(200)
    const heardBy = Date.now() + 5_000
    let seen = await burstAt(host)
    while (seen !== "600" && Date.now() < heardBy) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      seen = await burstAt(host)
    }
    expect(seen, "the plan change did not reach the host after the restart: is its LISTEN connection back?").toBe("600")
  }, 110_000)
})
