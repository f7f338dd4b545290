/**
 * The audit log: read only, for tenant admins.
 *
 * @since 0.1.0
 */
import { AuditLog } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as ListEnvelope from "../ListEnvelope.ts"
import { Authentication } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import * as QueryParams from "../QueryParams.ts"
import { RateLimitClass } from "../RateLimitClass.ts"
import * as ResponseHeaders from "../ResponseHeaders.ts"

/** An audit log entry as the API shows it. */
export const AuditEntryJson = Schema.Struct({
  entry_id: Schema.String,
  workspace_id: Schema.NullOr(Schema.String),
  action: Schema.String,
  actor: AuditLog.Actor,
  target: Schema.Struct({ type: Schema.String, id: Schema.String }),
  detail: Schema.Record(Schema.String, Schema.Unknown),
  created_at: Schema.Date
})

const Filter = Schema.String.check(Schema.isMinLength(1), Schema.isMaxCodePoints(200))

/** A day (`2026-12-01`, UTC) or an instant (RFC 3339, with its offset); read by `AuditLog` handlers' `rangeOf`. */
const When = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/, {
    message: "a date (YYYY-MM-DD, UTC) or a date-time with its offset (2026-12-01T09:30:00Z)"
  })
)

/** The filters of the log and of its CSV. */
export const auditFilters = {
  action: Schema.optionalKey(Filter),
  target_type: Schema.optionalKey(Filter),
  target_id: Schema.optionalKey(Filter),
  actor_id: Schema.optionalKey(Filter),
  from: Schema.optionalKey(When.annotate({ description: "Entries written at or after it: a day (from its first instant, UTC) or a date-time" })),
  to: Schema.optionalKey(When.annotate({ description: "Entries written up to it: a day (to its last instant, UTC, included) or a date-time (included)" }))
}

/** The audit log: read only, for tenant admins. */
export const AuditLogGroup = HttpApiGroup.make("auditLog")
  .add(
    HttpApiEndpoint.get("list", "/v1/audit-log", {
      query: { ...QueryParams.page, ...auditFilters },
      success: ListEnvelope.make(AuditEntryJson),
      error: [...Problems.cursorProblems, Problems.Forbidden]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.get("csv", "/v1/audit-log/csv", {
      query: auditFilters,
      success: HttpApiSchema.StreamUint8Array({ contentType: "text/csv" }),
      error: [Problems.Forbidden]
    }).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "The entries the same filters list, newest first, as one CSV file (RFC 4180, UTF-8, a header line; each entry's detail as JSON), streamed as it is read. Tenant admins only."
    ).annotate(
      OpenApi.Transform,
      ResponseHeaders.declare(200, "Content-Disposition", { description: "attachment, named `audit-log-<day>.csv` for the day it was read" })
    )
  )
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "Every change of the tenant (grants, comments, sessions, the directory, webhooks, workspaces, datasets and their uploads, reports, dashboards, alerts, exports, export schedules) with its actor, time, target and payload (never a secret nor the tenant's rows), newest first. Append-only: nothing changes or deletes an entry. Tenant admins only."
  )
