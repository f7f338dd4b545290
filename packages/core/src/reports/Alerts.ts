/**
 * Use cases on alerts (decision 0013): written by tenant admins, checked after
 * their dataset's refreshes, on their cron schedule, or on demand. A check
 * runs the measure over every row (the alert is the tenant's, not a
 * viewer's) and moves the alert between `ok` and `firing`, publishing
 * `alert.fire` or `alert.resolve` in the same transaction as the change.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import { type Alert, type AlertCheck, type AlertCreate, type AlertUpdate, checkKey, type CheckTrigger, holds, isDue } from "./Alert.ts"
import { alerts, AlertStore } from "./AlertStore.ts"
import type { EngineError } from "../datasets/AnalyticsEngine.ts"
import type { DatasetStore } from "../datasets/DatasetStore.ts"
import * as Datasets from "../datasets/Datasets.ts"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import type { NotFound, StoreError } from "../platform/Errors.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { type InvalidSort, type NewestFirstRequest, type Page, paginateNewestFirst } from "../platform/Pagination.ts"
import type { EventPublisher } from "../webhooks/EventPublisher.ts"
import { publish } from "../webhooks/EventPublisher.ts"
import * as SemanticModel from "../datasets/SemanticModel.ts"
import * as SemanticQuery from "../datasets/SemanticQuery.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { Transactor } from "../platform/Transactor.ts"
import * as WorkspaceRecordUseCases from "../tenancy/WorkspaceRecordUseCases.ts"

/** The query an alert checks. */
const queryOf = (alert: Pick<Alert, "measure" | "filters">): SemanticQuery.Query => ({ measures: [alert.measure], filters: alert.filters })

/** Checks that the alert's measure and filters fit its dataset's model. */
const checkAgainstDataset = (tenantId: TenantId, alert: Pick<Alert, "dataset_id" | "measure" | "filters">) =>
  Effect.gen(function*() {
    const dataset = yield* Datasets.get(tenantId, alert.dataset_id)
    const model = SemanticModel.check(dataset.model)
    if (model instanceof SemanticModel.ModelInvalid) return yield* model
    const plan = SemanticQuery.plan(model, queryOf(alert), { roles: [], attributes: {}, service: true }, new Date(0))
    if (plan instanceof SemanticQuery.QueryInvalid) return yield* plan
    return dataset
  })

/** An alert of the tenant, or NotFound. */
export const get: WorkspaceRecordUseCases.Get<Alert, AlertStore> = (tenantId, alertId) =>
  WorkspaceRecordUseCases.get(alerts, tenantId, alertId)

/** An alert as its audit entries show it: its rule, never what it measured (`last_value` is the tenant's data). */
export const shown: AuditLog.Shown<Alert> = {
  type: "alert",
  id: (a) => a.alert_id,
  workspace: (a) => a.workspace_id,
  detail: (a) => ({
    alert_id: a.alert_id,
    dataset_id: a.dataset_id,
    name: a.name,
    measure: a.measure,
    filters: a.filters,
    condition: a.condition,
    threshold: a.threshold,
    schedule: a.schedule
  })
}

/** Creates an alert on a measure of a dataset of the tenant (in the dataset's workspace); `alert.created`. */
export const create: WorkspaceRecordUseCases.Create<
  AlertCreate,
  Alert,
  NotFound | SemanticModel.ModelInvalid | SemanticQuery.QueryInvalid,
  AlertStore | DatasetStore | AuditLog.Recording,
  [by: AuditLog.Actor]
> = (tenantId, input, by) =>
  AuditLog.created(tenantId, shown, by, Effect.gen(function*() {
    const filters = input.filters ?? []
    const dataset = yield* checkAgainstDataset(tenantId, { dataset_id: input.dataset_id, measure: input.measure, filters })
    return yield* WorkspaceRecordUseCases.create(alerts, { tenant_id: tenantId, workspace_id: dataset.workspace_id }, () =>
      Effect.succeed({
        dataset_id: dataset.dataset_id,
        name: input.name,
        measure: input.measure,
        filters,
        condition: input.condition,
        threshold: input.threshold,
        schedule: input.schedule ?? { after_refresh: true },
        state: "ok" as const,
        last_value: null,
        last_checked_at: null
      }))
  }))

/** One page of a workspace's alerts, newest first. */
export const list: WorkspaceRecordUseCases.List<Alert, AlertStore> = (tenantId, workspaceId, request) =>
  WorkspaceRecordUseCases.list(alerts, tenantId, workspaceId, request)

/** Changes an alert's rule or schedule (checked against its dataset again); `alert.updated`. */
export const update: WorkspaceRecordUseCases.Update<
  AlertUpdate,
  Alert,
  SemanticModel.ModelInvalid | SemanticQuery.QueryInvalid,
  AlertStore | DatasetStore | AuditLog.Recording,
  [by: AuditLog.Actor]
> = (tenantId, alertId, change, by) =>
  AuditLog.updated(tenantId, shown, by, get(tenantId, alertId), (found) => WorkspaceRecordUseCases.update(alerts, alertId, Effect.succeed(found), (current) => {
    const updated: Alert = {
      ...current,
      name: change.name ?? current.name,
      measure: change.measure ?? current.measure,
      filters: change.filters ?? current.filters,
      condition: change.condition ?? current.condition,
      threshold: change.threshold ?? current.threshold,
      schedule: change.schedule ?? current.schedule
    }
    return Effect.as(checkAgainstDataset(tenantId, updated), updated)
  }))

/** Deletes an alert (`alert.deleted`). */
export const remove: WorkspaceRecordUseCases.Remove<AlertStore | AuditLog.Recording, [by: AuditLog.Actor]> = (tenantId, alertId, by) =>
  Effect.asVoid(AuditLog.deleted(tenantId, shown, by, get(tenantId, alertId), () => WorkspaceRecordUseCases.remove(alerts, tenantId, alertId)))

/** What checking needs. */
export type CheckServices = AlertStore | DatasetStore | Datasets.Engines | EventPublisher | Transactor

/**
 * Checks an alert now: measures its value over every row, records it and
 * keeps the check in the alert's history, and on a change of state
 * publishes `alert.fire` or `alert.resolve`, in one transaction.
 */
export const check = (alert: Alert, trigger: CheckTrigger): Effect.Effect<Alert, Datasets.QueryError | Datasets.QueryTimedOut | EngineError, CheckServices> =>
  Effect.gen(function*() {
    const { rows } = yield* Datasets.query(alert.tenant_id, alert.dataset_id, queryOf(alert), { roles: [], attributes: {}, service: true })
    const measured = rows[0]?.[alert.measure]
    const value = typeof measured === "number" ? measured : typeof measured === "string" && measured !== "" ? Number(measured) : null
    const firing = holds(alert, value)
    const now = new Date(yield* Clock.currentTimeMillis)
    const checked: Alert = { ...alert, state: firing ? "firing" : "ok", last_value: value, last_checked_at: now, updated_at: now }
    const changed = checked.state !== alert.state
    yield* (yield* Transactor).transaction(Effect.gen(function*() {
      const store = yield* AlertStore
      yield* store.update(checked)
      const kept: AlertCheck = {
        check_id: yield* uuidv7,
        tenant_id: alert.tenant_id,
        alert_id: alert.alert_id,
        trigger,
        measure: alert.measure,
        condition: alert.condition,
        threshold: alert.threshold,
        value,
        state: checked.state,
        transition: !changed ? null : firing ? "fired" : "resolved",
        checked_at: now
      }
      yield* store.insertCheck(kept)
      if (changed) {
        const data = { alert_id: alert.alert_id, name: alert.name, value: value ?? 0, threshold: alert.threshold }
        // The data is built here from stored values: a schema failure would be a bug.
        yield* publish(alert.tenant_id, firing ? "alert.fire" : "alert.resolve", alert.workspace_id, data).pipe(
          Effect.catchTag("SchemaError", Effect.die)
        )
      }
    }))
    return checked
  })

/** Checks an alert of the tenant now, on demand. */
export const checkNow = (tenantId: TenantId, alertId: string) => Effect.flatMap(get(tenantId, alertId), (alert) => check(alert, "manual"))

/** One page of an alert's history (its checks, what fired and resolved it), newest first; NotFound for an alert the tenant has not. */
export const history = (
  tenantId: TenantId,
  alertId: string,
  request: NewestFirstRequest
): Effect.Effect<Page<AlertCheck>, NotFound | StoreError | CursorError | InvalidSort, AlertStore | CursorCodec> =>
  Effect.gen(function*() {
    const alert = yield* get(tenantId, alertId)
    const store = yield* AlertStore
    return yield* paginateNewestFirst(request, (query) => store.listChecks(tenantId, alert.alert_id, query), checkKey)
  })

/** Checks, one after another, the alerts; a failing check is logged and leaves the alert as it was. */
const checkAll = (alerts: ReadonlyArray<Alert>, trigger: CheckTrigger) =>
  Effect.forEach(alerts, (alert) =>
    check(alert, trigger).pipe(
      Effect.catch((error) => Effect.logWarning(`Alert ${alert.alert_id} could not be checked`, error._tag))
    ), { discard: true })

/** Checks the alerts a dataset's refresh triggers. */
export const afterRefresh = (tenantId: TenantId, datasetId: string): Effect.Effect<void, StoreError, CheckServices> =>
  Effect.flatMap(AlertStore, (store) => store.listAfterRefresh(tenantId, datasetId)).pipe(Effect.flatMap((due) => checkAll(due, "refresh")))

/** Checks every scheduled alert that is due now (the host's scheduler runs this each minute). */
export const runDue: Effect.Effect<number, StoreError, CheckServices> = Effect.gen(function*() {
  const now = new Date(yield* Clock.currentTimeMillis)
  const due = (yield* (yield* AlertStore).listScheduled).filter((alert) => isDue(alert, now))
  yield* checkAll(due, "schedule")
  return due.length
})
