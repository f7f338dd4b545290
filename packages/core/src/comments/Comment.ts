/**
 * Threaded comments on a report (the sharing action `comment`): a thread
 * per report and one per visual of it. A comment starts a thread or replies
 * to one; replies are one level deep (decision 0019). A deleted comment
 * that has replies stays as a tombstone (no text, `deleted: true`) so the
 * thread still reads; any other is removed.
 *
 * @since 0.1.0
 */
import { Schema, SchemaTransformation } from "effect"
import type { Actor } from "../audit/AuditLog.ts"
import { Uuid } from "../platform/Ids.ts"
import type { ReportId } from "../reports/Report.ts"
import { MemberName } from "../datasets/SemanticModel.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"

/** A comment's identifier. */
export const CommentId = Uuid.pipe(Schema.brand("CommentId"))
/** A comment's identifier. */
export type CommentId = typeof CommentId.Type

/** The most characters a comment holds, once trimmed. */
export const maxTextLength = 4000

/**
 * A comment's text: surrounding white space is removed, then 1 to 4000
 * characters must remain. The bounds hold on the trimmed text, so the
 * document describes them in words on the text as sent.
 */
export const Text = Schema.String.annotate({
  description: `The comment: 1 to ${maxTextLength} characters once surrounding white space is removed (it is stored trimmed)`
}).pipe(Schema.decodeTo(Schema.Trimmed.check(Schema.isMinLength(1), Schema.isMaxLength(maxTextLength)), SchemaTransformation.trim()))

/** A comment as stored. */
export interface Comment {
  readonly comment_id: CommentId
  readonly tenant_id: TenantId
  readonly workspace_id: WorkspaceId
  readonly report_id: ReportId
  /** The visual whose thread it is in; `null` for the report's own thread. */
  readonly visual_id: string | null
  /** The comment it replies to (always a thread's first comment); `null` when it starts a thread. */
  readonly parent_id: CommentId | null
  readonly author: Actor
  /** Empty once deleted. */
  readonly text: string
  /** Deleted while it had replies: kept, without its text, so the thread still reads. */
  readonly deleted: boolean
  /** When its author last changed the text; `null` if never. */
  readonly edited_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

/** What a client sends to comment on a report, one of its visuals, or reply. */
export const CommentCreate = Schema.Struct({
  text: Text,
  visual_id: Schema.optionalKey(MemberName.annotate({
    description: "The visual whose thread it joins; the report's own thread when omitted. A reply is in its parent's thread: omit it, or name the same visual"
  })),
  parent_id: Schema.optionalKey(CommentId.annotate({
    description: "The comment it replies to: a thread's first comment (replies are one level deep)"
  }))
})
/** What a client sends to comment. */
export type CommentCreate = typeof CommentCreate.Type

/** What an author may change. */
export const CommentUpdate = Schema.Struct({ text: Text })
/** What an author may change. */
export type CommentUpdate = typeof CommentUpdate.Type

/** Which comments of a report a list shows. */
export interface CommentFilter {
  /** Only the thread of this visual (its first comments and their replies). */
  readonly visualId?: string | undefined
}

/** Whether a comment passes a filter. */
export const matches = (comment: Comment, filter: CommentFilter): boolean =>
  filter.visualId === undefined || comment.visual_id === filter.visualId
