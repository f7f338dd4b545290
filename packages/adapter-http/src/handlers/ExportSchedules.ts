/**
 * The handlers of `/v1/export-schedules...`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { Cursor, type ExportSchedule, ExportScheduleStore, ExportSchedules } from "@analytics/core"
import { Effect } from "effect"
import { type DomainError, toProblem } from "../edge/DomainProblems.ts"
import { exportServices, jobJson } from "./Exports.ts"
import { caller, captured, listRequest, respond } from "./Handling.ts"
import * as ResourceHandlers from "./ResourceHandlers.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** A schedule as the API shows it: its export's fields beside its timing. */
const scheduleJson = ({ request, tenant_id: _, ...schedule }: ExportSchedule.ExportSchedule) => ({ ...schedule, ...request })

/** `/v1/export-schedules...`: tenant admins, and members with download on the report for their own. */
export const exportSchedulesLayer = ApiHandlers.group(Api, "exportSchedules", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(...exportServices, ExportScheduleStore.ExportScheduleStore, Cursor.CursorCodec)
    type Services =
      | (typeof exportServices)[number]["Identifier"]
      | ExportScheduleStore.ExportScheduleStore
      | Cursor.CursorCodec
    /** Runs a use case, its errors as problems. */
    const run = <A, E extends DomainError>(effect: Effect.Effect<A, E, Services>) => Effect.mapError(provide(effect), toProblem)
    return handlers
      .handleAll(ResourceHandlers.handlers(handlers, {
        name: "exportSchedules",
        useCases: ExportSchedules,
        owner: ResourceHandlers.memberItself,
        run,
        toJson: scheduleJson
      }))
      .handle("sendNow", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("exportSchedules.sendNow")
          return respond(endpoint, yield* run(ExportSchedules.sendNow(member, params.id)))
        }))
      .handle("runs", ({ endpoint, params, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("exportSchedules.runs")
          const page = yield* run(ExportSchedules.runs(member, params.id, yield* listRequest(query)))
          // Every job a schedule made has its delivery: its recipient; a job finished before mail was recorded was sent.
          const data = page.data.map((job) => ({
            ...jobJson(job),
            recipient: job.delivery?.email ?? "",
            mail: job.status === "succeeded" && job.result !== null ? job.result.mail ?? "sent" : null
          }))
          return respond(endpoint, { data, page: page.page })
        }))
  }))
