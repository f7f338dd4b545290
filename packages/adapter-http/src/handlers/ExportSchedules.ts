/**
 * The handlers of `/v1/export-schedules...`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { Cursor, type ExportSchedule, ExportScheduleStore, ExportSchedules, Transactor } from "@analytics/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { type DomainError, toProblem } from "../edge/DomainProblems.ts"
import { exportServices } from "./Exports.ts"
import { caller, captured, listRequest, respond } from "./Handling.ts"

/** A schedule as the API shows it: its export's fields beside its timing. */
const scheduleJson = ({ request, tenant_id: _, ...schedule }: ExportSchedule.ExportSchedule) => ({ ...schedule, ...request })

/** `/v1/export-schedules...`: tenant admins, and members with download on the report for their own. */
export const exportSchedulesLayer = HttpApiBuilder.group(Api, "exportSchedules", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(...exportServices, ExportScheduleStore.ExportScheduleStore, Transactor.Transactor, Cursor.CursorCodec)
    const run = <A, E extends DomainError, R>(effect: Effect.Effect<A, E, R>) => Effect.mapError(provide(effect), toProblem)
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const admin = yield* caller("exportSchedules.list")
          const page = yield* run(ExportSchedules.list(admin, query.workspace_id, yield* listRequest(query)))
          return respond(endpoint, { data: page.data.map(scheduleJson), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("exportSchedules.create")
          return respond(endpoint, scheduleJson(yield* run(ExportSchedules.create(member, payload))))
        }))
      .handle("get", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("exportSchedules.get")
          return respond(endpoint, scheduleJson(yield* run(ExportSchedules.get(member, params.id))))
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("exportSchedules.update")
          return respond(endpoint, scheduleJson(yield* run(ExportSchedules.update(member, params.id, payload))))
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const member = yield* caller("exportSchedules.delete")
          yield* run(ExportSchedules.remove(member, params.id))
        }))
      .handle("sendNow", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("exportSchedules.sendNow")
          return respond(endpoint, yield* run(ExportSchedules.sendNow(member, params.id)))
        }))
  }))
