import { until } from "@analytics/testing"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, inject, it } from "vitest"
import { call, freePort, healthy, run, stop } from "./HostProcess.ts"

const dirs: Array<string> = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "analytics-host-"))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe("analytics-host", () => {
  it("serves on PORT with the bootstrap tenant, the demo workspace and the operator; stops on SIGTERM", async () => {
    const port = await freePort()
    const host = run(["serve"], {
      PORT: String(port),
      ANALYTICS_STORE: "memory",
      ANALYTICS_BOOTSTRAP_TOKEN: "boot-token",
      ANALYTICS_BOOTSTRAP_PLAN: "scale",
      ANALYTICS_OPERATOR_TOKEN: "op-token",
      ANALYTICS_DEMO: "1",
      PUBLIC_BASE_URL: "https://analytics.example.com/"
    })
    try {
      await healthy(host)
      const list = await call(host, "GET", "/v1/workspaces", "boot-token")
      expect(list.status).toBe(200)
      expect(list.body.data.map((w: { name: string }) => w.name)).toEqual(["Demo workspace"])
      // The demo's sales dataset and report, queried over HTTP: every row for the admin.
      const workspaceId = list.body.data[0].workspace_id
      const datasets = await call(host, "GET", `/v1/datasets?workspace_id=${workspaceId}`, "boot-token")
      expect(datasets.body.data.map((d: { name: string; row_count: number }) => [d.name, d.row_count])).toEqual([["Sales", 120_000]])
      const byRegion = await call(host, "POST", `/v1/datasets/${datasets.body.data[0].dataset_id}/query`, "boot-token", { measures: ["orders"], dimensions: ["region"] })
      expect(byRegion.body.data.reduce((sum: number, row: { orders: number }) => sum + row.orders, 0)).toBe(120_000)
      expect(byRegion.body.data.map((row: { region: string }) => row.region).sort()).toEqual(["APAC", "EU", "LATAM", "US"])
      const reports = await call(host, "GET", `/v1/reports?workspace_id=${workspaceId}`, "boot-token")
      expect(reports.body.data.map((r: { name: string; pages: Array<{ visuals: Array<unknown> }> }) => [r.name, r.pages.length, r.pages.flatMap((p) => p.visuals).length])).toEqual([["Sales overview", 4, 9]])
      const monthly = await call(host, "POST", `/v1/reports/${reports.body.data[0].report_id}/visuals/revenue_by_month/query`, "boot-token", {})
      expect(monthly.body.row_count).toBe(24)
      const tenant = await call(host, "POST", "/v1/tenants", "op-token", { name: "Beta", plan: "starter" })
      expect(tenant.status).toBe(201)
      expect(tenant.body).toMatchObject({ plan: "starter", name: "Beta" })
      expect(typeof tenant.body.tenant_id).toBe("string")
      const created = await call(host, "POST", "/v1/workspaces", tenant.body.token, { name: "Ops" })
      expect(created.status).toBe(201)
      expect(Object.keys(created.body)).toEqual(expect.arrayContaining(["workspace_id", "name", "created_at"]))
      const config = await call(host, "GET", "/api/config/public")
      expect(config.body.urls.api).toBe("https://analytics.example.com/v1")
      expect(host.output()).toMatch(/"msg":"Ready"/)
    } finally {
      expect(await stop(host)).toBe(0)
    }
  })

  it("answers /healthz while storage initialises; API requests wait for it", async () => {
    const port = await freePort()
    const host = run(["serve"], {
      PORT: String(port),
      ANALYTICS_DATA_DIR: join(tempDir(), "data"),
      ANALYTICS_BOOTSTRAP_TOKEN: "boot-token"
    })
    try {
      await healthy(host)
      // a fresh embedded database takes seconds to create; this request waits rather than fails
      const list = await call(host, "GET", "/v1/workspaces", "boot-token")
      expect(list.status).toBe(200)
    } finally {
      expect(await stop(host)).toBe(0)
    }
  }, 60_000)

  it("keeps data in ANALYTICS_DATA_DIR across restarts, even after kill -9; prints a generated token once", async () => {
    const dataDir = join(tempDir(), "data")
    const port = await freePort()
    const first = run(["serve"], { PORT: String(port), ANALYTICS_DATA_DIR: dataDir })
    let token: string
    try {
      await healthy(first)
      token = (await until(() => first.output().match(/ast_[A-Za-z0-9_-]{43}/), (match) => match !== null, { timeoutMillis: 30_000, intervalMillis: 50 }))![0]
      expect((await call(first, "POST", "/v1/workspaces", token, { name: "Kept" })).status).toBe(201)
    } finally {
      first.process.kill("SIGKILL")
      await first.exited
    }
    const second = run(["serve"], { PORT: String(port), ANALYTICS_DATA_DIR: dataDir })
    try {
      await healthy(second)
      const list = await call(second, "GET", "/v1/workspaces", token)
      expect(list.status).toBe(200)
      expect(list.body.data.map((w: { name: string }) => w.name)).toEqual(["Kept"])
      expect(second.output()).not.toContain(token)
    } finally {
      expect(await stop(second)).toBe(0)
    }
  }, 90_000)

  it("refuses invalid configuration with a clear message and exit code 1", async () => {
    const badPort = run(["serve"], { PORT: "eighty" })
    expect(await badPort.exited).toBe(1)
    expect(badPort.output()).toMatch(/invalid configuration[\s\S]*PORT/)
    const noUrl = run(["serve"], { ANALYTICS_STORE: "postgres" })
    expect(await noUrl.exited).toBe(1)
    expect(noUrl.output()).toContain("DATABASE_URL")
    const badStore = run(["serve"], { ANALYTICS_STORE: "mysql" })
    expect(await badStore.exited).toBe(1)
    expect(badStore.output()).toContain("ANALYTICS_STORE")
    const several = run(["serve"], { PORT: "-1", ANALYTICS_DEMO: "maybe", LOG_LEVEL: "loud", PUBLIC_BASE_URL: "ftp://x" })
    expect(await several.exited).toBe(1)
    for (const variable of ["PORT", "ANALYTICS_DEMO", "LOG_LEVEL", "PUBLIC_BASE_URL"]) {
      expect(several.output()).toContain(`${variable}: `)
    }
    const badCommand = run(["frobnicate"], {})
    expect(await badCommand.exited).toBe(2)
    expect(badCommand.output()).toContain("Usage: analytics-host")
  })

  const databaseUrl = inject("databaseUrl")
  it.skipIf(databaseUrl === "")(
    `migrates and serves on PostgreSQL${databaseUrl === "" ? " (skipped: no PostgreSQL; set TEST_DATABASE_URL)" : ""}`,
    async () => {
      const env = { ANALYTICS_STORE: "postgres", DATABASE_URL: databaseUrl, ANALYTICS_BOOTSTRAP_TOKEN: "pg-boot" }
      const migrate = run(["migrate"], env)
      expect(await migrate.exited).toBe(0)
      const again = run(["migrate"], env)
      expect(await again.exited).toBe(0)
      expect(again.output()).toContain("up to date")
      const port = await freePort()
      const host = run(["serve"], { ...env, PORT: String(port) })
      try {
        await healthy(host)
        expect((await call(host, "POST", "/v1/workspaces", "pg-boot", { name: "On PG" })).status).toBe(201)
        const list = await call(host, "GET", "/v1/workspaces", "pg-boot")
        expect(list.body.data.map((w: { name: string }) => w.name)).toContain("On PG")
      } finally {
        expect(await stop(host)).toBe(0)
      }
    },
    60_000
  )
})
