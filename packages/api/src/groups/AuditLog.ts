/**
 * The audit log: read only, for tenant admins.
 *
 * @since 0.1.0
 */
import { AuditLog } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as ListEnvelope from "../ListEnvelope.ts"
import { Authentication } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import * as QueryParams from "../QueryParams.ts"
import { RateLimitClass } from "../RateLimitClass.ts"

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

/** The audit log: read only, for tenant admins. */
export const AuditLogGroup = HttpApiGroup.make("auditLog")
  .add(
    HttpApiEndpoint.get("list", "/v1/audit-log", {
      query: {
        ...QueryParams.page,
        action: Schema.optionalKey(Filter),
        target_type: Schema.optionalKey(Filter),
        target_id: Schema.optionalKey(Filter),
        actor_id: Schema.optionalKey(Filter)
      },
      success: ListEnvelope.make(AuditEntryJson),
      error: [...Problems.cursorProblems, Problems.Forbidden]
    }).annotate(RateLimitClass, "read")
  )
  .middleware(Authentication)
  .annotate(
    OpenApi.Description,
    "Every change of the tenant (grants, comments, sessions, the directory, webhooks, workspaces, datasets and their uploads, reports, dashboards, alerts, exports, export schedules) with its actor, time, target and payload (never a secret nor the tenant's rows), newest first. Append-only: nothing changes or deletes an entry. Tenant admins only."
  )
