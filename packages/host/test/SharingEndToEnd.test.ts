/**
 * decision 0014 as a new user meets it, on the packaged host with its default
 * store (embedded PGlite on disk) and the demo data: share the report
 * "Sales overview" by link with a password, then open it as a visitor.
 */
import { afterAll, describe, expect, it } from "vitest"
import { call, type Cleanups, demoHost } from "./HostProcess.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

describe("sharing on the packaged host", () => {
  it("a report shared by link with a password opens for its visitor, with the link's absolute URL", async () => {
    const { host, port, report, token } = await demoHost(cleanups, (port) => `http://localhost:${port}/`)
    expect(report.name).toBe("Sales overview")
    const created = await call(host, "POST", "/v1/sharing/grants", token, {
      subject_type: "report",
      subject_id: report.report_id,
      principal_type: "link",
      actions: ["view"],
      password: "open sesame, please",
      watermark: true,
      email: "board@example.com"
    })
    expect(created.status).toBe(201)
    expect(created.body.link_url).toMatch(new RegExp(`^http://localhost:${port}/s/[A-Za-z0-9_-]{32}$`))
    const json = { accept: "application/json" }
    const locked = await fetch(created.body.link_url, { headers: json })
    expect(locked.status).toBe(401)
    expect((await locked.json()).code).toBe("share/password-required")
    const unlocked = await fetch(created.body.link_url, {
      method: "POST",
      headers: { ...json, "content-type": "application/json" },
      body: JSON.stringify({ password: "open sesame, please" })
    })
    expect(unlocked.status).toBe(204)
    const cookie = unlocked.headers.get("set-cookie")!.split(";")[0]!
    // Watermarked: no JSON view (its rows would leave without the watermark, decision 0014), the page only.
    const opened = await fetch(created.body.link_url, { headers: { ...json, cookie } })
    expect(opened.status).toBe(403)
    expect((await opened.json()).detail).toContain("watermarked")
    const page = await fetch(created.body.link_url, { headers: { accept: "text/html", cookie } })
    expect(page.headers.get("content-type")).toContain("text/html")
    const html = await page.text()
    expect(html).toContain("Sales overview")
    expect(html).toContain(`data-watermark="board@example.com"`)
    // The demo's policies let link visitors see every region: the charts are drawn.
    expect(html).toContain("<svg")
  }, 180_000)
})
