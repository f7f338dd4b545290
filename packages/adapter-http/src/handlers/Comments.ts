/**
 * The handlers of `/v1/reports/{id}/comments` and `/v1/comments/{id}`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { AuditLog, type Comment, CommentStore, Comments, Cursor, EventPublisher, Transactor } from "@analytics/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { type DomainError, toProblem } from "../edge/DomainProblems.ts"
import { accessServices, caller, captured, listRequest, respond, withoutTenant } from "./Handling.ts"

/** A comment as the API shows it: as stored, without its tenant. */
const commentJson = (comment: Comment.Comment) => withoutTenant(comment)

/** `/v1/reports/{id}/comments` and `/v1/comments/{id}`: members read; holders of comment post; authors edit; authors and admins delete. */
export const commentsLayer = HttpApiBuilder.group(Api, "comments", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(
      CommentStore.CommentStore,
      ...accessServices,
      AuditLog.AuditStore,
      EventPublisher.EventPublisher,
      Transactor.Transactor,
      Cursor.CursorCodec
    )
    const run = <A, E extends DomainError, R>(effect: Effect.Effect<A, E, R>) => Effect.mapError(provide(effect), toProblem)
    return handlers
      .handle("list", ({ endpoint, params, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("comments.list")
          const request = { ...(yield* listRequest(query)), sort: query.sort }
          const page = yield* run(Comments.list(member, params.id, { visualId: query.visual_id }, request))
          return respond(endpoint, { data: page.data.map(commentJson), page: page.page })
        }))
      .handle("create", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("comments.create")
          return respond(endpoint, commentJson(yield* run(Comments.create(member, params.id, payload))))
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("comments.update")
          return respond(endpoint, commentJson(yield* run(Comments.update(member, params.id, payload))))
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const member = yield* caller("comments.delete")
          yield* run(Comments.remove(member, params.id))
        }))
  }))
