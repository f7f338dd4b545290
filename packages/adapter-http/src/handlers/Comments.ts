/**
 * The handlers of `/v1/reports/{id}/comments` and `/v1/comments/{id}`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { AuditLog, type Comment, CommentStore, Comments, Cursor, EventPublisher, type Principal, Transactor } from "@analytics/core"
import { Effect } from "effect"
import { type DomainError, toProblem } from "../edge/DomainProblems.ts"
import { accessServices, caller, captured, listRequest, respond, withoutTenant } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** A comment as the API shows it: as stored, without its tenant, its author named from `names`. */
const commentJson = (names: ReadonlyMap<string, string>) => (comment: Comment.Comment) => ({
  ...withoutTenant(comment),
  author: { ...comment.author, name: names.get(comment.author.id) ?? null }
})

/** Comments as the API shows them, their authors' names read once each (decision 0024). */
const named = (member: Principal.Member, comments: ReadonlyArray<Comment.Comment>) =>
  Effect.map(Comments.authorNames(member.tenantId, comments), (names) => comments.map(commentJson(names)))

/** `/v1/reports/{id}/comments` and `/v1/comments/{id}`: members read; holders of comment post; authors edit; authors and admins delete. */
export const commentsLayer = ApiHandlers.group(Api, "comments", (handlers) =>
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
          return respond(endpoint, { data: yield* run(named(member, page.data)), page: page.page })
        }))
      .handle("create", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("comments.create")
          const created = yield* run(Comments.create(member, params.id, payload))
          return respond(endpoint, (yield* run(named(member, [created])))[0]!)
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("comments.update")
          const updated = yield* run(Comments.update(member, params.id, payload))
          return respond(endpoint, (yield* run(named(member, [updated])))[0]!)
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const member = yield* caller("comments.delete")
          yield* run(Comments.remove(member, params.id))
        }))
  }))
