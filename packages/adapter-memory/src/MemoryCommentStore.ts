/**
 * The CommentStore in memory: tenant records (`MemoryWorkspaceRecords`),
 * listed per report and counted per thread.
 *
 * @since 0.1.0
 */
import { Comment, CommentStore, Pagination } from "@analytics/core"
import { Effect } from "effect"
import { tenantRecords } from "./MemoryWorkspaceRecords.ts"

/** A fresh in-memory comment store. */
export const make = Effect.map(tenantRecords((comment: Comment.Comment) => comment.comment_id), ({ all, methods }) =>
  CommentStore.CommentStore.of({
    ...methods,
    list: (tenantId, reportId, filter, query) =>
      Effect.sync(() =>
        Pagination.applyInMemory(
          [...all()].filter((c) => c.tenant_id === tenantId && c.report_id === reportId && Comment.matches(c, filter)),
          query,
          CommentStore.commentKey,
          (c) => c.created_at
        )
      ),
    countReplies: (tenantId, commentId) =>
      Effect.sync(() => [...all()].filter((c) => c.tenant_id === tenantId && c.parent_id === commentId).length)
  }))
