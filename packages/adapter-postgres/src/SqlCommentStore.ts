/**
 * The CommentStore over `SqlClient` (PostgreSQL and PGlite): tenant records
 * (`SqlWorkspaceRecords`), listed per report and counted per thread.
 *
 * @since 0.1.0
 */
import { AuditLog, type Comment, CommentStore, type Report, type Tenant, type Workspace } from "@analytics/core"
import { Effect, Schema } from "effect"
import * as Rows from "./Rows.ts"
import { isId } from "./StoreErrors.ts"
import { tenantRecords } from "./SqlWorkspaceRecords.ts"

const CommentRow = Schema.Struct({
  comment_id: Schema.String,
  tenant_id: Schema.String,
  workspace_id: Schema.String,
  report_id: Schema.String,
  visual_id: Schema.NullOr(Schema.String),
  parent_id: Schema.NullOr(Schema.String),
  author_type: AuditLog.Actor.fields.type,
  author_id: Schema.String,
  text: Schema.String,
  deleted: Schema.Boolean,
  edited_at: Schema.NullOr(Schema.Date),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

// The row has the comment's shape; its values were validated on the way in.
const toComment = ({ author_id, author_type, ...row }: typeof CommentRow.Type): Comment.Comment => ({
  ...row,
  comment_id: row.comment_id as Comment.CommentId,
  tenant_id: row.tenant_id as Tenant.TenantId,
  workspace_id: row.workspace_id as Workspace.WorkspaceId,
  report_id: row.report_id as Report.ReportId,
  parent_id: row.parent_id as Comment.CommentId | null,
  author: { type: author_type, id: author_id }
})

const toRow = ({ author, ...comment }: Comment.Comment) => ({ ...comment, author_type: author.type, author_id: author.id })

/** The CommentStore over the `SqlClient` in context. */
export const make = Effect.map(
  tenantRecords<Comment.Comment, Comment.CommentId, typeof CommentRow>({
    table: "comments",
    id: "comment_id",
    name: "CommentStore",
    row: CommentRow,
    toRow,
    fromRow: toComment,
    // A comment stays on its report and in its thread.
    kept: ["report_id", "parent_id"]
  }),
  ({ methods, operation, rows, sql }) =>
    CommentStore.CommentStore.of({
      ...methods,
      list: (tenantId, reportId, filter, query) => {
        if (!isId(tenantId) || !isId(reportId)) return Effect.succeed([])
        const desc = query.sort.direction === "desc"
        const after = query.after
        // Strictly after (created_at, id) in "created_at <direction>, id asc" order; the inclusive bound lets the index seek.
        const afterClause = after === undefined ? sql.literal("") : (() => {
          const at = new Date(after.value)
          return sql`AND created_at ${sql.literal(desc ? "<=" : ">=")} ${at}
            AND (created_at ${sql.literal(desc ? "<" : ">")} ${at} OR (created_at = ${at} AND comment_id > ${after.id}))`
        })()
        const visual = filter.visualId === undefined ? sql.literal("") : sql`AND visual_id = ${filter.visualId}`
        return sql`SELECT * FROM comments
          WHERE tenant_id = ${tenantId} AND report_id = ${reportId} AND created_at <= ${query.createdAtOrBefore} ${visual} ${afterClause}
          ORDER BY created_at ${sql.literal(desc ? "DESC" : "ASC")}, comment_id ASC LIMIT ${query.take}`.pipe(
          rows.all(operation("list"))
        )
      },
      countReplies: (tenantId, commentId) => {
        if (!isId(tenantId) || !isId(commentId)) return Effect.succeed(0)
        return sql`SELECT count(*) AS count FROM comments
          WHERE tenant_id = ${tenantId} AND parent_id = ${commentId}`.pipe(
          Rows.count(operation("countReplies"))
        )
      }
    })
)
