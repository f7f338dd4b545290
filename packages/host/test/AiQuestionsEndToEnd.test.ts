/**
 * decision 0016 "done when", on the packaged host with ANALYTICS_DEMO=1 and no
 * network: a new user asks "total amount by region last month" of the demo
 * sales dataset and reads a streamed answer (server-sent events over a real
 * socket) whose numbers are those of POST /v1/datasets/{id}/query for the
 * same semantic query. The demo has no "amount" measure: the built-in
 * answerer reads it as revenue.
 */
import { afterAll, describe, expect, it } from "vitest"
import { call, type Cleanups, demoHost } from "./HostProcess.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** The events of a streamed answer, in order. */
const events = async (url: string, token: string, body: unknown) => {
  const response = await fetch(`${url}/v1/ai/ask`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body)
  })
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
  const text = await response.text()
  return text.trim().split("\n\n").map((frame) => ({
    event: /^event: (.*)$/m.exec(frame)![1]!,
    data: JSON.parse(/^data: (.*)$/m.exec(frame)![1]!)
  }))
}

describe("AI questions on the packaged host", () => {
  it("a new user asks the demo dataset in words and gets a streamed answer, offline, with the query endpoint's numbers", async () => {
    const { host, token } = await demoHost(cleanups, (port) => `http://127.0.0.1:${port}`)
    const [workspace] = (await call(host, "GET", "/v1/workspaces", token)).body.data
    const [dataset] = (await call(host, "GET", `/v1/datasets?workspace_id=${workspace.workspace_id}`, token)).body.data
    // A new user, made CFO (the demo's row-level security shows the CFO every region).
    const user = (await call(host, "POST", "/v1/users", token, { email: "new@example.com", name: "New" })).body
    const cfo = (await call(host, "POST", "/v1/executive-roles", token, { name: "CFO" })).body
    await call(host, "POST", `/v1/executive-roles/${cfo.role_id}/members`, token, { user_id: user.user_id })
    const userToken = (await call(host, "POST", `/v1/users/${user.user_id}/tokens`, token)).body.token

    const stream = await events(host.url, userToken, { question: "total amount by region last month", dataset_id: dataset.dataset_id })
    expect(stream.map((e) => e.event).filter((e) => e !== "answer")).toEqual(["progress", "query", "progress", "rows", "progress", "done"])
    const done = stream[stream.length - 1]!.data
    expect(done.status).toBe("answered")
    expect(done.query).toEqual({
      measures: ["revenue"], dimensions: ["region"], time_dimensions: [{ dimension: "ordered_at", date_range: "last month" }],
      order: [{ member: "revenue", direction: "desc" }], limit: 1000
    })
    expect(done.visual).toEqual({ type: "bar", encoding: { x: "region", y: ["revenue"] } })
    // The same query through the query endpoint gives the same numbers: every region, last month.
    const direct = await call(host, "POST", `/v1/datasets/${dataset.dataset_id}/query`, userToken, done.query)
    expect(direct.status).toBe(200)
    expect(done.result).toEqual(direct.body)
    expect(direct.body.data.map((r: any) => r.region).sort()).toEqual(["APAC", "EU", "LATAM", "US"])
    // The words carry those numbers, the largest first, and name the month.
    const month = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 1)).toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" })
    expect(done.text).toContain(`Revenue by region for ${month}: `)
    // In the measure's declared format (the demo's revenue is in euros).
    const format = new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR" })
    for (const row of direct.body.data) expect(done.text).toContain(`${row.region} ${format.format(row.revenue)}`)
    expect(done.text).toContain(`The largest revenue is ${direct.body.data[0].region}`)
    expect(stream.filter((e) => e.event === "answer").map((e) => e.data.text).join("")).toBe(done.text)
  }, 180_000)
})
