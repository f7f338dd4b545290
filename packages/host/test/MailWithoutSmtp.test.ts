/**
 * A host without SMTP_URL, as a local install runs: its mail is not sent,
 * so it is written to the host's log whole, marked as not sent (decision
 * 0015, "Mail without a mail service"). A sign-in link asked for and an
 * invitation made are found in the process's output, and the logged
 * sign-in link signs in.
 */
import { until } from "@analytics/testing"
import { afterAll, describe, expect, it } from "vitest"
import { call, freePort, healthy, run, stop } from "./HostProcess.ts"

const stops: Array<() => Promise<unknown>> = []
afterAll(async () => {
  for (const stopping of stops) await stopping()
})

describe("a host without SMTP_URL", () => {
  it("logs each mail whole at info, marked as not sent: the sign-in link (which signs in) and the invitation's URL are in its output", async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const host = run(["serve"], { PORT: String(port), ANALYTICS_STORE: "memory", ANALYTICS_BOOTSTRAP_TOKEN: "boot-token", PUBLIC_BASE_URL: base })
    stops.push(() => stop(host))
    await healthy(host)
    expect((await call(host, "POST", "/v1/users", "boot-token", { email: "ada@example.com", name: "Ada", roles: ["member"] })).status).toBe(201)

    expect((await call(host, "POST", "/api/session/sign-in-links", undefined, { email: "ada@example.com" })).status).toBe(202)
    // Pino writes one JSON line per entry: the message's own text is its `msg`.
    const entries = () =>
      host.output().split("\n").flatMap((line) => {
        try {
          return [JSON.parse(line) as { level: number; msg: string }]
        } catch {
          return []
        }
      })
    const mailTo = (email: string) => entries().find((e) => e.msg.startsWith(`Mail not sent (no SMTP_URL): to ${email},`))
    const signIn = await until(async () => mailTo("ada@example.com"), (entry) => entry !== undefined, { what: "the sign-in mail in the log", timeoutMillis: 10_000 })
    expect(signIn!.level, "info").toBe(30)
    expect(signIn!.msg).toContain("subject \"Sign in to Analytics")
    const link = new RegExp(`${base.replace(/\./g, "\\.")}/sign-in#token=([\\w-]+)`).exec(signIn!.msg)
    expect(link, signIn!.msg).not.toBeNull()
    // The logged link is the real one: it signs Ada in, once.
    const opened = await call(host, "POST", "/api/session", undefined, { link_token: link![1] })
    expect(opened.status, JSON.stringify(opened.body)).toBe(200)

    expect((await call(host, "POST", "/v1/invitations", "boot-token", { email: "newbie@example.com" })).status).toBe(201)
    const invitation = await until(async () => mailTo("newbie@example.com"), (entry) => entry !== undefined, { what: "the invitation in the log", timeoutMillis: 10_000 })
    expect(invitation!.msg).toContain(`${base}/invitations/accept?token=`)
  }, 60_000)
})
