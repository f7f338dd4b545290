/**
 * The CommentStore over `SqlClient` (PostgreSQL and PGlite): tenant records
 * (`SqlWorkspaceRecords`), listed per report and counted per thread.
 *
 * @since 0.1.0
 */
import { type AuditLog, type Comment, CommentStore, type Report, type Tenant, type Workspace } from "@analytics/core"
import { Effect } from "effect"
import { isId } from "./StoreErrors.ts"
import { tenantRecords } from "./SqlWorkspaceRecords.ts"

interface CommentRow {
  readonly comment_id: string
  readonly tenant_id: string
  readonly workspace_id: string
  readonly report_id: string
  readonly visual_id: string | null
  readonly parent_id: string | null
  readonly author_type: AuditLog.Actor["type"]
  readonly author_id: string
  readonly text: string
  readonly deleted: boolean
  readonly edited_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

// Rows were validated on the way in.
const toComment = ({ author_id, author_type, ...row }: CommentRow): Comment.Comment => ({
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
  tenantRecords<Comment.Comment, Comment.CommentId>({
    table: "comments",
    id: "comment_id",
    name: "CommentStore",
    toRow,
    fromRow: (row) => toComment(row as unknown as CommentRow),
    // A comment stays on its report and in its thread.
    kept: ["report_id", "parent_id"]
  }),
  ({ fail, methods, sql }) =>
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
        return sql<CommentRow>`SELECT * FROM comments
          WHERE tenant_id = ${tenantId} AND report_id = ${reportId} AND created_at <= ${query.createdAtOrBefore} ${visual} ${afterClause}
          ORDER BY created_at ${sql.literal(desc ? "DESC" : "ASC")}, comment_id ASC LIMIT ${query.take}`.pipe(
          Effect.map((rows) => rows.map(toComment)),
          fail("list")
        )
      },
      countReplies: (tenantId, commentId) => {
        if (!isId(tenantId) || !isId(commentId)) return Effect.succeed(0)
        return sql<{ readonly count: number | string }>`SELECT count(*) AS count FROM comments
          WHERE tenant_id = ${tenantId} AND parent_id = ${commentId}`.pipe(
          Effect.map(([row]) => Number(row?.count ?? 0)),
          fail("countReplies")
        )
      }
    })
)
