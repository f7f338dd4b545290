/**
 * Alerts on datasets' measures.
 *
 * @since 0.1.0
 */
import { Alert, Dataset, Workspace } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as ListEnvelope from "../ListEnvelope.ts"
import { Authentication, Idempotent, idempotencyHeader } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import * as QueryParams from "../QueryParams.ts"
import { queryProblems } from "../QueryResult.ts"
import { RateLimitClass } from "../RateLimitClass.ts"

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

const alertParams = { id: Schema.String }

/** Alerts on datasets' measures. */
export const AlertsGroup = HttpApiGroup.make("alerts")
  .add(
    HttpApiEndpoint.get("list", "/v1/alerts", {
      query: { workspace_id: Workspace.WorkspaceId, ...QueryParams.page },
      success: ListEnvelope.make(AlertJson),
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/alerts", {
      headers: idempotencyHeader,
      payload: Alert.AlertCreate,
      success: AlertJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.QueryInvalid, Problems.ModelInvalid]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Creates an alert on a measure of a dataset: alert.fire when `measure condition threshold` starts to hold, alert.resolve when it stops. Checked after each refresh of the dataset and/or on `schedule.cron` (UTC). Tenant admins only."
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/alerts/:id", { params: alertParams, success: AlertJson, error: [Problems.Forbidden, Problems.NotFound] })
      .annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/alerts/:id", {
      params: alertParams,
      payload: Alert.AlertUpdate,
      success: AlertJson,
      error: [Problems.Forbidden, Problems.NotFound, Problems.QueryInvalid, Problems.ModelInvalid]
    }).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/v1/alerts/:id", {
      params: alertParams,
      success: HttpApiSchema.NoContent,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.post("check", "/v1/alerts/:id/check", {
      params: alertParams,
      headers: idempotencyHeader,
      success: AlertJson,
      error: queryProblems
    }).middleware(Idempotent).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "Checks the alert now (firing or resolving it as its condition says).")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Alerts on datasets' measures. Members read them; tenant admins write and check them.")
