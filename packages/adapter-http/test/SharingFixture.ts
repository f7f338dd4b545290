/**
 * What the sharing tests share: the export tests' sales overview (a server
 * on a real DuckDB engine, a tenant, a dataset of 90 orders over three
 * regions, the report "Sales overview") mailing through a real SMTP
 * server and hashing link passwords with Argon2id, as the host does; links
 * see every row, embeds their viewer's region.
 */
import { Argon2PasswordHasher } from "@analytics/adapter-node"
import { SmtpMailer } from "@analytics/adapter-smtp"
import { SmtpServer } from "@analytics/testing/smtp"
import { Effect } from "effect"
import * as ExportFixture from "./ExportFixture.ts"

/** Where grants are managed. */
export const grantsPath = "/v1/sharing/grants"

/** A view-only, watermarked link to a report for board@example.com, with the password "correct horse battery". */
export const passwordLink = (reportId: string) => ({
  subject_type: "report",
  subject_id: reportId,
  principal_type: "link",
  actions: ["view"],
  watermark: true,
  email: "board@example.com",
  password: "correct horse battery"
})

/** How a suite's tenant differs: its stores (memory by default) and its dataset's row-level security. */
export interface SetupOptions {
  readonly stores?: ExportFixture.ServeOptions["stores"]
  readonly rowLevelSecurity?: ReadonlyArray<object> | undefined
}

/** Starts the server and arranges the tenant, its data and its report, on `options.stores`. */
export const setupWith = (options: SetupOptions = {}) => Effect.gen(function*() {
  const smtp = yield* SmtpServer.start()
  const fixture = yield* ExportFixture.setup({
    stores: options.stores,
    server: { passwordHasher: Argon2PasswordHasher.layer },
    mailer: SmtpMailer.layer({ url: `smtp://127.0.0.1:${smtp.port}`, from: "Analytics <noreply@analytics.test>" }),
    rowLevelSecurity: options.rowLevelSecurity ?? [
      { roles: ["admin", "link"], all_rows: true },
      { roles: ["embed"], filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }
    ],
    visuals: (datasetId) => [
      { id: "total", type: "kpi", title: "Total", dataset_id: datasetId, query: { measures: ["total_amount"] }, encoding: { value: "total_amount" } },
      ExportFixture.byRegion(datasetId, { title: "By region" })
    ],
    settings: { query_timeout_seconds: 20 }
  })
  const { admin, datasetId, local, ok, reportId, server, tenantId, workspaceId, worker } = fixture
  const call = (method: string, path: string, token: string, body?: unknown) => server.request(method, path, { token, body })
  /** A directory user with a personal token. */
  const user = (email: string) =>
    Effect.gen(function*() {
      const created = yield* ok("POST", "/v1/users", { email, name: email.split("@")[0] })
      const issued = yield* ok("POST", `/v1/users/${created.user_id}/tokens`, {})
      return { id: created.user_id as string, token: issued.token as string }
    })
  return { server, smtp, admin, tenantId, call, ok, user, workspaceId, datasetId, reportId, worker, local }
})

/** Starts the server and arranges the tenant, its data and its report (memory stores). */
export const setup = setupWith()
