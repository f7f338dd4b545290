/**
 * Alerts on datasets' measures.
 *
 * @since 0.1.0
 */
import { Alert, Dataset, Workspace } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import * as Endpoints from "../Endpoints.ts"
import { Authentication, Idempotent, idempotencyHeader } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import { queryProblems } from "../QueryResult.ts"
import { RateLimitClass } from "../RateLimitClass.ts"
import * as ResourceEndpoints from "../ResourceEndpoints.ts"

/** An alert as the API shows it. */
export const AlertJson = Schema.Struct({
  alert_id: Alert.AlertId,
  workspace_id: Workspace.WorkspaceId,
  dataset_id: Dataset.DatasetId,
  name: Schema.String,
  measure: Schema.String,
  filters: Alert.AlertCreate.fields.filters,
  condition: Alert.Condition,
  threshold: Schema.Number,
  schedule: Alert.Schedule,
  state: Schema.Literals(["ok", "firing"]),
  last_value: Schema.NullOr(Schema.Number),
  last_checked_at: Schema.NullOr(Schema.Date),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** One check of an alert as its history shows it. */
export const AlertCheckJson = Schema.Struct({
  check_id: Schema.String,
  trigger: Alert.CheckTrigger.annotate({ description: "What started it: the dataset's refresh, the alert's schedule, or POST /v1/alerts/{id}/check" }),
  measure: Schema.String.annotate({ description: "The rule it checked, as it was then" }),
  condition: Alert.Condition,
  threshold: Schema.Number,
  value: Schema.NullOr(Schema.Number).annotate({ description: "What it measured; null when the query found no value" }),
  state: Schema.Literals(["ok", "firing"]).annotate({ description: "The alert's state after the check" }),
  transition: Schema.NullOr(Schema.Literals(["fired", "resolved"])).annotate({
    description: "fired (alert.fire was sent), resolved (alert.resolve was sent), or null when the state stayed"
  }),
  checked_at: Schema.Date
})

/** Alerts on datasets' measures. */
export const AlertsGroup = ResourceEndpoints.group("alerts", {
  path: "/v1/alerts",
  json: AlertJson,
  create: {
    payload: Alert.AlertCreate,
    error: [Problems.Forbidden, Problems.NotFound, Problems.QueryInvalid, Problems.ModelInvalid],
    description: "Creates an alert on a measure of a dataset: alert.fire when `measure condition threshold` starts to hold, alert.resolve when it stops. Checked after each refresh of the dataset and/or on `schedule.cron` (UTC). Tenant admins only."
  },
  update: {
    payload: Alert.AlertUpdate,
    error: [Problems.Forbidden, Problems.NotFound, Problems.QueryInvalid, Problems.ModelInvalid]
  }
})
  .add(
    HttpApiEndpoint.post("check", "/v1/alerts/:id/check", {
      params: ResourceEndpoints.idParams,
      headers: idempotencyHeader,
      success: AlertJson,
      error: queryProblems
    }).middleware(Idempotent).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "Checks the alert now (firing or resolving it as its condition says).")
  )
  .add(Endpoints.list("history", "/v1/alerts/:id/history", {
    params: ResourceEndpoints.idParams,
    item: AlertCheckJson,
    error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound],
    description: "An alert's history, newest first: each check (after a refresh, on its schedule, or asked for), what it measured against which rule, and whether it fired or resolved the alert. Members of the tenant."
  }))
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Alerts on datasets' measures. Members read them; tenant admins write and check them.")
