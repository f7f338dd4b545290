/**
 * Alerts (decision 0013): a rule on a measure of a dataset, checked after each
 * refresh of the dataset and/or on a cron schedule. An alert fires
 * (`alert.fire`) when its condition starts to hold and resolves
 * (`alert.resolve`) when it stops; it never fires again while firing.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { CronExpression, DatasetId, isDue as cronDue } from "../datasets/Dataset.ts"
import { Uuid } from "../platform/Ids.ts"
import { FilterValue, makeFilter, MemberName } from "../datasets/SemanticModel.ts"
import type { Keyset } from "../platform/Pagination.ts"
import { Name, type TenantId } from "../tenancy/Tenant.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"

/** An alert's identifier. */
export const AlertId = Uuid.pipe(Schema.brand("AlertId"))
/** An alert's identifier. */
export type AlertId = typeof AlertId.Type

/** How the measure compares with the threshold when the alert holds. */
export const Condition = Schema.Literals(["gt", "gte", "lt", "lte"])
/** A condition. */
export type Condition = typeof Condition.Type

/** When an alert is checked: after each refresh of its dataset, on a schedule, or both. */
export const Schedule = Schema.Struct({
  after_refresh: Schema.Boolean,
  cron: Schema.optionalKey(CronExpression)
})

/** Whether an alert's condition held at its last check. */
export type AlertState = "ok" | "firing"

/** An alert as stored. */
export interface Alert {
  readonly alert_id: AlertId
  readonly tenant_id: TenantId
  readonly workspace_id: WorkspaceId
  readonly dataset_id: DatasetId
  readonly name: string
  readonly measure: string
  readonly filters: ReadonlyArray<typeof Filter.Type>
  readonly condition: Condition
  readonly threshold: number
  readonly schedule: typeof Schedule.Type
  readonly state: AlertState
  readonly last_value: number | null
  readonly last_checked_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

const Filter = makeFilter(FilterValue)

/** What a client sends to create an alert. */
export const AlertCreate = Schema.Struct({
  dataset_id: DatasetId,
  name: Name,
  measure: MemberName,
  filters: Schema.optionalKey(Schema.Array(Filter).check(Schema.isMaxLength(20))),
  condition: Condition,
  threshold: Schema.Finite,
  schedule: Schema.optionalKey(Schedule.annotate({ description: "After each refresh when omitted" }))
})
/** What a client sends to create an alert. */
export type AlertCreate = typeof AlertCreate.Type

/** What a client may change. */
export const AlertUpdate = Schema.Struct({
  name: Schema.optionalKey(Name),
  measure: Schema.optionalKey(MemberName),
  filters: Schema.optionalKey(Schema.Array(Filter).check(Schema.isMaxLength(20))),
  condition: Schema.optionalKey(Condition),
  threshold: Schema.optionalKey(Schema.Finite),
  schedule: Schema.optionalKey(Schedule)
})
/** What a client may change. */
export type AlertUpdate = typeof AlertUpdate.Type

/** Whether a measured value meets the condition (an empty result, null, never does). */
export const holds = (alert: Pick<Alert, "condition" | "threshold">, value: number | null): boolean => {
  if (value === null) return false
  switch (alert.condition) {
    case "gt":
      return value > alert.threshold
    case "gte":
      return value >= alert.threshold
    case "lt":
      return value < alert.threshold
    case "lte":
      return value <= alert.threshold
  }
}

/** Whether a scheduled alert is due at `now`: its cron has a time after its last check (or creation) and not after now. */
export const isDue = (alert: Alert, now: Date): boolean =>
  alert.schedule.cron !== undefined && cronDue(alert.schedule.cron, alert.last_checked_at ?? alert.created_at, now)

/** What started a check: its dataset's refresh, its cron schedule, or someone asking (`POST /v1/alerts/{id}/check`). */
export const CheckTrigger = Schema.Literals(["refresh", "schedule", "manual"])
/** What started a check. */
export type CheckTrigger = typeof CheckTrigger.Type

/**
 * One check of an alert as its history keeps it (`GET /v1/alerts/{id}/history`):
 * when, what started it, the rule it checked (as it was then), what it
 * measured, the state it left, and whether it fired or resolved the alert.
 * Gone with its alert.
 */
export interface AlertCheck {
  readonly check_id: string
  readonly tenant_id: TenantId
  readonly alert_id: AlertId
  readonly trigger: CheckTrigger
  readonly measure: string
  readonly condition: Condition
  readonly threshold: number
  readonly value: number | null
  readonly state: AlertState
  /** `fired` (became firing: `alert.fire`), `resolved` (`alert.resolve`), or `null` when the state stayed. */
  readonly transition: "fired" | "resolved" | null
  readonly checked_at: Date
}

/** A check's position in the newest-first history. */
export const checkKey = (check: AlertCheck): Keyset => ({ value: check.checked_at.getTime(), id: check.check_id })
