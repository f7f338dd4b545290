/**
 * Port: comments on reports. Every method is scoped by tenant: another
 * tenant's comment is a missing one.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { Comment, CommentFilter, CommentId } from "./Comment.ts"
import type { StoreError } from "../platform/Errors.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { ReportId } from "../reports/Report.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type * as WorkspaceRecords from "../tenancy/WorkspaceRecords.ts"

/** The fields a list of comments sorts by. */
export const commentSortFields = ["created_at"] as const

/** A comment's position in a list (by creation, then id). */
export const commentKey = (comment: Comment): Keyset => ({ value: comment.created_at.getTime(), id: comment.comment_id })

/** Comments on reports: tenant records, listed per report and counted per thread. */
export class CommentStore extends Context.Service<CommentStore, WorkspaceRecords.TenantRecords<Comment, CommentId> & {
  /** One page of a report's comments passing `filter`, by creation in the query's direction, then id ascending. */
  readonly list: (
    tenantId: TenantId,
    reportId: ReportId,
    filter: CommentFilter,
    query: PageQuery<"created_at">
  ) => Effect.Effect<ReadonlyArray<Comment>, StoreError>
  /** How many replies a comment has. */
  readonly countReplies: (tenantId: TenantId, commentId: CommentId) => Effect.Effect<number, StoreError>
}>()("@analytics/core/CommentStore") {}
