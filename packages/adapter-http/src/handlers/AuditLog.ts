/**
 * The handlers of `GET /v1/audit-log` and `GET /v1/audit-log/csv`: tenant
 * admins only, the same filters (decision 0025).
 *
 * @since 0.1.0
 */
import { Api, Problems } from "@analytics/api"
import { AuditLog, Cursor } from "@analytics/core"
import { Clock, Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { toProblem } from "../edge/DomainProblems.ts"
import { caller, captured, listRequest, respond } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

const dayMillis = 24 * 60 * 60 * 1000

/** A day or an instant as the query gives it (its form checked by the schema), or `undefined` for a day no calendar has (`2026-02-31`). */
const instantOf = (text: string): Date | undefined => {
  const day = text.slice(0, 10)
  const midnight = new Date(`${day}T00:00:00Z`)
  if (Number.isNaN(midnight.getTime()) || midnight.toISOString().slice(0, 10) !== day) return undefined
  const at = text.length === 10 ? midnight : new Date(text)
  return Number.isNaN(at.getTime()) ? undefined : at
}

const badDate = (name: "from" | "to", detail: string) =>
  new Problems.InvalidRequest({ detail, errors: [{ path: ["query", name], message: detail }] })

/**
 * The date range of `from` and `to`: from its first instant (a day from
 * 00:00 UTC), to its last included (a day to its end, an instant itself);
 * a day no calendar has, or a range that ends before it starts, is a
 * problem, never an empty list.
 */
const rangeOf = (query: { readonly from?: string | undefined; readonly to?: string | undefined }) =>
  Effect.gen(function*() {
    const since = query.from === undefined ? undefined : instantOf(query.from)
    if (query.from !== undefined && since === undefined) return yield* badDate("from", `from: ${query.from} is no date`)
    const to = query.to === undefined ? undefined : instantOf(query.to)
    if (query.to !== undefined && to === undefined) return yield* badDate("to", `to: ${query.to} is no date`)
    const before = to === undefined ? undefined : new Date(to.getTime() + (query.to!.length === 10 ? dayMillis : 1))
    if (since !== undefined && before !== undefined && before.getTime() <= since.getTime()) {
      return yield* badDate("to", `to: ${query.to} is before from: ${query.from}`)
    }
    return { since, before }
  })

interface FilterQuery {
  readonly action?: string | undefined
  readonly target_type?: string | undefined
  readonly target_id?: string | undefined
  readonly actor_id?: string | undefined
  readonly from?: string | undefined
  readonly to?: string | undefined
}

/** The store's filter of the query's parameters. */
const filterOf = (query: FilterQuery) =>
  Effect.map(rangeOf(query), (range): AuditLog.AuditFilter => ({
    action: query.action,
    targetType: query.target_type,
    targetId: query.target_id,
    actorId: query.actor_id,
    ...range
  }))

/** `GET /v1/audit-log` and its CSV: tenant admins only. */
export const auditLogLayer = ApiHandlers.group(Api, "auditLog", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(AuditLog.AuditStore, Cursor.CursorCodec)
    const store = yield* AuditLog.AuditStore
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const admin = yield* caller("auditLog.list")
          const filter = yield* filterOf(query)
          const page = yield* Effect.mapError(provide(AuditLog.list(admin.tenantId, filter, yield* listRequest(query))), toProblem)
          return respond(endpoint, {
            data: page.data.map((e) => ({
              entry_id: e.entry_id,
              workspace_id: e.workspace_id,
              action: e.action,
              actor: e.actor,
              target: e.target,
              detail: e.detail,
              created_at: e.created_at
            })),
            page: page.page
          })
        }))
      .handle("csv", ({ query }) =>
        Effect.gen(function*() {
          const admin = yield* caller("auditLog.csv")
          const filter = yield* filterOf(query)
          // The status line goes before the first page is read: a store failing later ends the file early, and is logged.
          const body = AuditLog.csv(admin.tenantId, filter).pipe(
            Stream.provideService(AuditLog.AuditStore, store),
            Stream.tapError((error) => Effect.logError("The audit log's CSV stopped early", error))
          )
          const day = new Date(yield* Clock.currentTimeMillis).toISOString().slice(0, 10)
          return HttpServerResponse.stream(body, {
            contentType: "text/csv; charset=utf-8",
            headers: {
              "content-disposition": `attachment; filename="audit-log-${day}.csv"`,
              "x-content-type-options": "nosniff",
              "cache-control": "private, no-store"
            }
          })
        }))
  }))
