/**
 * The audit trail of what a tenant changes besides grants and its directory
 * (real HTTP, on memory, PGlite and PostgreSQL): webhooks (created, URL,
 * events and state changed, secret rotated, deleted), workspaces, datasets
 * (created, model and row-level security changed, data uploaded, deleted),
 * reports, dashboards, alerts, exports (through the API and through a link;
 * a file's URL handed out)
 * and export schedules (created, changed, sent now, deleted). Each entry has
 * its actor, time and target, reaches the `audit.event` firehose, and never
 * carries a secret nor a row of the tenant.
 */
import { PgEngine } from "@analytics/adapter-postgres"
import { PgClient } from "@effect/sql-pg"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"
import { assert, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { start } from "./TestServer.ts"
import { onEveryStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"

/** The rows the upload sends: amounts no entry may carry. */
const rows = "region,amount\nEU,424242\nUS,535353\nAPAC,646464"

onEveryStore("the audit trail of a tenant's changes", (stores) => {
  it.live("webhooks, workspaces, datasets, reports, dashboards, alerts, exports and schedules: each change once, with actor and target, on the firehose, no secret", () =>
    Effect.gen(function*() {
      const { server, worker } = yield* ExportFixture.serve({ stores: stores() })
      const { token } = yield* server.tenant("scale")
      const ok = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
        Effect.map(server.request(method, path, { token, body, headers }), (r) => {
          assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
          return r.body
        })
      const firehose = yield* ok("POST", "/v1/webhooks", { url: "https://hooks.example.com/audit", events: ["audit.event"] })

      // Webhooks.
      const hook = yield* ok("POST", "/v1/webhooks", { url: "https://hooks.example.com/a", events: ["export.succeeded"] })
      yield* ok("PATCH", `/v1/webhooks/${hook.webhook_id}`, { url: "https://hooks.example.com/b?token=tok_in_query_123", events: ["export.failed"], enabled: false })
      const rotated = yield* ok("POST", `/v1/webhooks/${hook.webhook_id}/rotate-secret`, {})
      const given = yield* ok("POST", `/v1/webhooks/${hook.webhook_id}/rotate-secret`, { secret: "whsec_given_by_admin_0123456789abcdef" })
      yield* ok("DELETE", `/v1/webhooks/${hook.webhook_id}`)

      // A workspace, its dataset (uploaded, re-modelled with row-level security), report, dashboard, alert.
      const workspace = yield* ok("POST", "/v1/workspaces", { name: "Sales" })
      const dataset = yield* ok("POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: "Orders", source: { type: "upload" } })
      const uploaded = yield* ok("PUT", `/v1/datasets/${dataset.dataset_id}/data`, rows, { "content-type": "text/csv" })
      const policies = [{ roles: ["admin"], all_rows: true }]
      yield* ok("PATCH", `/v1/datasets/${dataset.dataset_id}`, { model: { ...uploaded.model, row_level_security: policies } })
      const report = yield* ok("POST", "/v1/reports", {
        workspace_id: workspace.workspace_id,
        name: "Overview",
        pages: [{ name: "Overview", visuals: [ExportFixture.byRegion(dataset.dataset_id)] }]
      })
      yield* ok("PATCH", `/v1/reports/${report.report_id}`, { name: "Sales overview" })
      const dashboard = yield* ok("POST", "/v1/dashboards", { workspace_id: workspace.workspace_id, name: "Board", tiles: [] })
      yield* ok("PATCH", `/v1/dashboards/${dashboard.dashboard_id}`, { name: "Executive" })
      const alert = yield* ok("POST", "/v1/alerts", { dataset_id: dataset.dataset_id, name: "Big", measure: "total_amount", condition: "gt", threshold: 10 })
      yield* ok("PATCH", `/v1/alerts/${alert.alert_id}`, { threshold: 20 })

      // Exports: the admin's, and a link visitor's (who has no name: the grant is the actor).
      const job = yield* ok("POST", `/v1/reports/${report.report_id}/export`, { format: "csv", visual_id: "by_region" })
      const link = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: report.report_id, principal_type: "link", actions: ["view", "download"] })
      const slug = (link.link_url as string).split("/").pop()!
      const shared = yield* server.request("POST", `/s/${slug}/export`, { body: { format: "csv", visual_id: "by_region" }, headers: { accept: "application/json" } })
      assert.strictEqual(shared.status, 202, shared.text)
      yield* worker
      const result = yield* ok("GET", `/v1/jobs/${job.job_id}/result`)

      // A schedule (to a user of the tenant): created, changed, sent now, deleted.
      yield* ok("POST", "/v1/users", { email: "ada@example.com", name: "Ada", roles: ["admin"] })
      const schedule = yield* ok("POST", "/v1/export-schedules", {
        report_id: report.report_id,
        name: "Weekly",
        cron: "0 8 * * 1",
        timezone: "UTC",
        format: "csv",
        visual_id: "by_region",
        recipients: ["ada@example.com"]
      })
      yield* ok("PATCH", `/v1/export-schedules/${schedule.schedule_id}`, { cron: "0 9 * * 1" })
      yield* ok("POST", `/v1/export-schedules/${schedule.schedule_id}/send-now`)
      yield* ok("DELETE", `/v1/export-schedules/${schedule.schedule_id}`)

      // The report, dashboard, alert and dataset deleted.
      yield* ok("DELETE", `/v1/alerts/${alert.alert_id}`)
      yield* ok("DELETE", `/v1/dashboards/${dashboard.dashboard_id}`)
      yield* ok("DELETE", `/v1/reports/${report.report_id}`)
      yield* ok("DELETE", `/v1/datasets/${dataset.dataset_id}`)

      const log = yield* ok("GET", "/v1/audit-log?limit=200")
      const entries: Array<any> = [...log.data].reverse().filter((e: any) => !e.action.startsWith("grant.") && !e.action.startsWith("user."))
      const rowsOf = entries.map((e) => [e.action, e.target.type, e.target.id])
      // Compared as a set: entries of one millisecond order by their random ids, not by arrival.
      assert.sameDeepMembers(rowsOf, [
        ["webhook.created", "webhook", firehose.webhook_id],
        ["webhook.created", "webhook", hook.webhook_id],
        ["webhook.updated", "webhook", hook.webhook_id],
        ["webhook.secret_rotated", "webhook", hook.webhook_id],
        ["webhook.secret_rotated", "webhook", hook.webhook_id],
        ["webhook.deleted", "webhook", hook.webhook_id],
        ["workspace.created", "workspace", workspace.workspace_id],
        ["dataset.created", "dataset", dataset.dataset_id],
        ["dataset.data_uploaded", "dataset", dataset.dataset_id],
        ["dataset.updated", "dataset", dataset.dataset_id],
        ["report.created", "report", report.report_id],
        ["report.updated", "report", report.report_id],
        ["dashboard.created", "dashboard", dashboard.dashboard_id],
        ["dashboard.updated", "dashboard", dashboard.dashboard_id],
        ["alert.created", "alert", alert.alert_id],
        ["alert.updated", "alert", alert.alert_id],
        ["export.requested", "job", job.job_id],
        ["export.requested", "job", shared.body.job_id],
        ["export.downloaded", "job", job.job_id],
        ["export_schedule.created", "export_schedule", schedule.schedule_id],
        ["export_schedule.updated", "export_schedule", schedule.schedule_id],
        ["export_schedule.sent_now", "export_schedule", schedule.schedule_id],
        ["export_schedule.deleted", "export_schedule", schedule.schedule_id],
        ["alert.deleted", "alert", alert.alert_id],
        ["dashboard.deleted", "dashboard", dashboard.dashboard_id],
        ["report.deleted", "report", report.report_id],
        ["dataset.deleted", "dataset", dataset.dataset_id]
      ])
      const admin = entries.find((e) => e.action === "workspace.created").actor
      assert.strictEqual(admin.type, "user")
      for (const entry of entries) {
        if (entry.target.id === shared.body.job_id) continue
        assert.deepStrictEqual(entry.actor, admin, `${entry.action} is the admin's`)
        assert.isFalse(Number.isNaN(Date.parse(entry.created_at)), entry.action)
      }
      const one = (action: string, id?: string) => entries.find((e) => e.action === action && (id === undefined || e.target.id === id))
      // What changed, from and to.
      assert.deepStrictEqual(one("webhook.updated").detail.changes, {
        url: { from: "https://hooks.example.com/a", to: "https://hooks.example.com/b" },
        events: { from: ["export.succeeded"], to: ["export.failed"] },
        enabled: { from: true, to: false },
        disabled_reason: { from: null, to: "Disabled by an admin" }
      })
      assert.deepStrictEqual(one("dataset.updated").detail.changes, { row_level_security: { from: [], to: policies } })
      assert.deepStrictEqual(one("report.updated").detail.changes, { name: { from: "Overview", to: "Sales overview" } })
      assert.deepStrictEqual(one("dashboard.updated").detail.changes, { name: { from: "Board", to: "Executive" } })
      assert.deepStrictEqual(one("alert.updated").detail.changes, { threshold: { from: 10, to: 20 } })
      assert.deepStrictEqual(one("export_schedule.updated").detail.changes, { cron: { from: "0 8 * * 1", to: "0 9 * * 1" } })
      // An upload: how much, never what.
      assert.deepInclude(one("dataset.data_uploaded").detail, { row_count: 3, bytes: rows.length, format: "csv", columns: ["region", "amount"] })
      assert.deepInclude(one("export.requested", job.job_id).detail, { report_id: report.report_id, report_name: "Sales overview", format: "csv", visual_id: "by_region", channel: "token" })
      // The file's URL handed out is its download (decision 0025), never the URL itself.
      assert.deepInclude(one("export.downloaded", job.job_id).detail, { report_id: report.report_id, report_name: "Sales overview", format: "csv" })
      // A shared export: the grant asked for it.
      const viaLink = one("export.requested", shared.body.job_id)
      assert.deepStrictEqual(viaLink.actor, { type: "grant", id: link.grant_id })
      assert.deepInclude(viaLink.detail, { grant_id: link.grant_id, principal_type: "link", format: "csv" })
      assert.deepInclude(one("workspace.created").detail, { name: "Sales" })
      assert.deepInclude(one("webhook.secret_rotated").detail, { webhook_id: hook.webhook_id })

      // Never a secret, a signed URL nor a row.
      const text = JSON.stringify(log)
      for (const secret of [hook.secret, firehose.secret, rotated.secret, given.secret, "tok_in_query_123", result.url, link.link_url, "424242", "535353", "646464"]) {
        assert.notInclude(text, secret)
      }

      // Each entry went to the firehose too.
      const deliveries = yield* ok("GET", `/v1/webhooks/${firehose.webhook_id}/deliveries?limit=200`)
      const fired = deliveries.data.map((d: any) => d.event.data.action)
      for (const entry of entries) assert.include(fired, entry.action)
      assert.strictEqual(fired.filter((a: string) => !a.startsWith("grant.") && !a.startsWith("user.")).length, entries.length)
    }).pipe(Effect.scoped), 120_000)

  if (databaseUrl === "") {
    it.skip(`a refresh someone asks for ${skippedForNoPostgres}`, () => {})
  } else {
    it.live("a refresh someone asks for is recorded with who asked", () =>
      Effect.gen(function*() {
        const url = yield* freshDatabase(databaseUrl)
        const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
        yield* sql`CREATE TABLE orders AS SELECT 'EU'::text AS region, 7::int AS amount`
        const server = yield* start(stores(), { engines: { postgres: PgEngine.layer(Redacted.make(url)) } })
        const { token } = yield* server.tenant()
        const workspace = (yield* server.request("POST", "/v1/workspaces", { token, body: { name: "Sales" } })).body
        const dataset = (yield* server.request("POST", "/v1/datasets", { token, body: { workspace_id: workspace.workspace_id, name: "Orders", source: { type: "postgres", table: "orders" } } })).body
        const refreshed = yield* server.request("POST", `/v1/datasets/${dataset.dataset_id}/refresh`, { token })
        assert.strictEqual(refreshed.status, 200, refreshed.text)
        const [entry] = (yield* server.request("GET", "/v1/audit-log?action=dataset.refresh_requested", { token })).body.data
        assert.deepInclude(entry, { action: "dataset.refresh_requested", target: { type: "dataset", id: dataset.dataset_id } })
        assert.strictEqual(entry.actor.type, "user")
        const [refresh] = (yield* server.request("GET", `/v1/datasets/${dataset.dataset_id}/refreshes`, { token })).body.data
        assert.strictEqual(entry.detail.refresh_id, refresh.refresh_id)
      }).pipe(Effect.scoped), 60_000)
  }
})
