/**
 * The CommentStore in memory.
 *
 * @since 0.1.0
 */
import { Comment, CommentStore, Pagination } from "@analytics/core"
import { Effect } from "effect"
import { restore, set, write } from "./Transactions.ts"

/** A fresh in-memory comment store. */
export const make = Effect.sync(() => {
  const comments = new Map<string, Comment.Comment>()
  const of = (tenantId: string, commentId: string) => {
    const comment = comments.get(commentId)
    return comment !== undefined && comment.tenant_id === tenantId ? comment : undefined
  }
  return CommentStore.CommentStore.of({
    insert: (comment) => write(() => [undefined, set(comments, comment.comment_id, comment)]),
    find: (tenantId, commentId) => Effect.sync(() => of(tenantId, commentId)),
    list: (tenantId, reportId, filter, query) =>
      Effect.sync(() =>
        Pagination.applyInMemory(
          [...comments.values()].filter((c) => c.tenant_id === tenantId && c.report_id === reportId && Comment.matches(c, filter)),
          query,
          CommentStore.commentKey,
          (c) => c.created_at
        )
      ),
    countReplies: (tenantId, commentId) =>
      Effect.sync(() => [...comments.values()].filter((c) => c.tenant_id === tenantId && c.parent_id === commentId).length),
    update: (comment) =>
      write(() => of(comment.tenant_id, comment.comment_id) === undefined ? [false, () => {}] : [true, set(comments, comment.comment_id, comment)]),
    remove: (tenantId, commentId) =>
      write(() => {
        if (of(tenantId, commentId) === undefined) return [false, () => {}]
        const undo = restore(comments, commentId)
        comments.delete(commentId)
        return [true, undo]
      })
  })
})
