/**
 * Use cases on comments (the sharing action `comment`, decision 0019):
 * members who may read a report read its threads; those holding `comment`
 * on it (or its workspace) post and reply; authors edit their own text;
 * authors delete their own comments and admins anyone's. Each change is
 * written with its audit entry in one transaction.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import type { Comment, CommentCreate, CommentFilter, CommentId, CommentUpdate } from "./Comment.ts"
import { commentKey, CommentStore } from "./CommentStore.ts"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import { DirectoryStore } from "../directory/DirectoryStore.ts"
import { Forbidden, NotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import type { EventPublisher } from "../webhooks/EventPublisher.ts"
import * as Grants from "../sharing/Grants.ts"
import type { GrantStore } from "../sharing/GrantStore.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { endOfTime, type InvalidSort, type ListRequest, type Page, paginate } from "../platform/Pagination.ts"
import * as Policy from "../sharing/Policy.ts"
import type { Member } from "../auth/Principal.ts"
import { findVisual, type ReportId } from "../reports/Report.ts"
import * as Reports from "../reports/Reports.ts"
import { ReportStore } from "../reports/ReportStore.ts"
import type * as SharedViews from "../sharing/SharedViews.ts"
import type * as Subjects from "../sharing/Subjects.ts"
import { Transactor } from "../platform/Transactor.ts"
import type { UserId } from "../directory/User.ts"
import type { TenantId } from "../tenancy/Tenant.ts"

/** The comment does not fit its report: a visual it lacks, a parent that is not a thread's first comment. */
export class CommentInvalid extends TaggedFailure("CommentInvalid")<{
  readonly detail: string
}> {
  readonly code = "comment/invalid" as const
}

/** The comment was deleted: its tombstone changes no more. */
export class CommentDeleted extends TaggedFailure("CommentDeleted")<{
  readonly commentId: string
}> {
  readonly code = "comment/deleted" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `Comment ${this.commentId} was deleted: its tombstone changes no more`
  }
}

/** What the use cases on comments read and write. */
export type Services =
  | CommentStore
  | ReportStore
  | GrantStore
  | DirectoryStore
  | Subjects.Services
  | AuditLog.AuditStore
  | EventPublisher
  | Transactor

/** A list request, as the HTTP adapter hands it over: one order, by creation, oldest first unless `sort` says `-created_at`. */
export type CommentListRequest = Omit<ListRequest<"created_at">, "sortable" | "defaultSort">

const actorOf = (member: Member): AuditLog.Actor => ({ type: "user", id: member.userId })

/** A comment as the audit log carries it. */
const payloadOf = (comment: Comment) => ({
  comment_id: comment.comment_id,
  report_id: comment.report_id,
  visual_id: comment.visual_id,
  parent_id: comment.parent_id,
  author: comment.author,
  text: comment.text,
  deleted: comment.deleted,
  edited_at: comment.edited_at === null ? null : comment.edited_at.toISOString()
})

/** Writes a change and its audit entry in one transaction. */
const commit = <A, E, R>(member: Member, comment: Comment, action: string, detail: Record<string, unknown>, change: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Transactor, (transactor) =>
    transactor.transaction(Effect.gen(function*() {
      const result = yield* change
      yield* AuditLog.record(member.tenantId, {
        workspace_id: comment.workspace_id,
        action,
        actor: actorOf(member),
        target: { type: "comment", id: comment.comment_id },
        detail
      })
      return result
    })))

/**
 * Comments on a report, on one of its visuals (`visual_id`), or replies to a
 * thread's first comment (`parent_id`; the reply joins its parent's thread).
 * Needs `comment` on the report or its workspace (admins always).
 */
export const create = (
  member: Member,
  reportId: string,
  input: CommentCreate
): Effect.Effect<Comment, NotFound | Forbidden | Grants.ShareExpired | CommentInvalid | StoreError, Services> =>
  Effect.gen(function*() {
    const report = yield* Reports.get(member.tenantId, reportId)
    yield* Policy.onSubject(member, "comments.create", report.report_id)
    const store = yield* CommentStore
    let visualId: string | null = input.visual_id ?? null
    let parentId: CommentId | null = null
    if (input.parent_id !== undefined) {
      const parent = yield* store.find(member.tenantId, input.parent_id)
      if (parent === undefined || parent.report_id !== report.report_id) {
        return yield* new CommentInvalid({ detail: `parent_id: no comment ${input.parent_id} on this report` })
      }
      if (parent.parent_id !== null) {
        return yield* new CommentInvalid({ detail: `parent_id: replies are one level deep; reply to the thread's first comment, ${parent.parent_id}` })
      }
      if (parent.deleted) return yield* new CommentInvalid({ detail: `parent_id: comment ${parent.comment_id} was deleted; start a new thread` })
      if (input.visual_id !== undefined && input.visual_id !== parent.visual_id) {
        return yield* new CommentInvalid({
          detail: `visual_id: a reply joins its parent's thread, ${parent.visual_id === null ? "the report's own" : `visual "${parent.visual_id}"`}`
        })
      }
      visualId = parent.visual_id
      parentId = parent.comment_id
    } else if (visualId !== null && findVisual(report, visualId) === undefined) {
      return yield* new CommentInvalid({ detail: `visual_id: the report has no visual "${visualId}"` })
    }
    const now = new Date(yield* Clock.currentTimeMillis)
    const comment: Comment = {
      comment_id: (yield* uuidv7) as CommentId,
      tenant_id: member.tenantId,
      workspace_id: report.workspace_id,
      report_id: report.report_id,
      visual_id: visualId,
      parent_id: parentId,
      author: actorOf(member),
      text: input.text,
      deleted: false,
      edited_at: null,
      created_at: now,
      updated_at: now
    }
    yield* commit(member, comment, "comment.created", payloadOf(comment), store.insert(comment))
    return comment
  })

/**
 * One page of a report's comments (filter: one visual's thread), by
 * creation: oldest first (a thread reads as a conversation), or newest
 * first with `sort=-created_at`. Tombstones are listed, without text.
 */
export const list = (
  member: Member,
  reportId: string,
  filter: CommentFilter,
  request: CommentListRequest
): Effect.Effect<Page<Comment>, NotFound | StoreError | CursorError | InvalidSort, CommentStore | ReportStore | CursorCodec> =>
  Effect.gen(function*() {
    const report = yield* Reports.get(member.tenantId, reportId)
    const store = yield* CommentStore
    return yield* paginate(
      { ...request, sortable: ["created_at"], defaultSort: { field: "created_at", direction: "asc" } },
      (query) => store.list(member.tenantId, report.report_id, filter, query),
      commentKey
    )
  })

/**
 * A comment the member may change under the operation's `owner` rule (their
 * own; an admin's any): another member's is NotFound to them, as is a
 * comment whose report is gone.
 */
const owned = (member: Member, commentId: string, operation: "comments.update" | "comments.delete") =>
  Effect.gen(function*() {
    const comment = yield* Effect.flatMap(CommentStore, (store) => store.find(member.tenantId, commentId as CommentId)).pipe(
      Policy.owned(member, operation, { type: "comment", id: commentId }, (c) => c.author)
    )
    const report = yield* (yield* ReportStore).find(member.tenantId, comment.report_id)
    if (report === undefined) return yield* new NotFound({ resource: "comment", id: commentId })
    return comment
  })

/** Whether the member wrote the comment. */
const isAuthor = (member: Member, comment: Comment) => comment.author.type === "user" && comment.author.id === member.userId

/**
 * Changes a comment's text: its author only, while they still hold
 * `comment` on the report (an admin may delete another's comment, never
 * put words in its mouth). A tombstone changes no more.
 */
export const update = (
  member: Member,
  commentId: string,
  input: CommentUpdate
): Effect.Effect<Comment, NotFound | Forbidden | Grants.ShareExpired | CommentDeleted | StoreError, Services> =>
  Effect.gen(function*() {
    const comment = yield* owned(member, commentId, "comments.update")
    if (!isAuthor(member, comment)) return yield* new Forbidden({ detail: "Only its author may edit a comment; an admin may delete it" })
    if (comment.deleted) return yield* new CommentDeleted({ commentId: comment.comment_id })
    yield* Grants.authorize(member, "report", comment.report_id, "comment")
    if (input.text === comment.text) return comment
    const now = new Date(yield* Clock.currentTimeMillis)
    const edited: Comment = { ...comment, text: input.text, edited_at: now, updated_at: now }
    const store = yield* CommentStore
    const replace = Effect.flatMap(store.update(edited), (found) => found ? Effect.void : Effect.fail(new NotFound({ resource: "comment", id: commentId })))
    yield* commit(member, edited, "comment.updated", payloadOf(edited), replace)
    return edited
  })

/**
 * Deletes a comment: its author, or an admin (moderation). One with replies
 * becomes a tombstone (no text, `deleted: true`) so its thread still reads;
 * any other is removed, and a tombstone left without replies goes with its
 * last one. Deleting a tombstone again changes nothing.
 */
export const remove = (member: Member, commentId: string): Effect.Effect<void, NotFound | StoreError, Services> =>
  Effect.gen(function*() {
    const comment = yield* owned(member, commentId, "comments.delete")
    if (comment.deleted) return
    const store = yield* CommentStore
    const now = new Date(yield* Clock.currentTimeMillis)
    const change = Effect.gen(function*() {
      const replies = yield* store.countReplies(member.tenantId, comment.comment_id)
      if (replies > 0) {
        yield* store.update({ ...comment, text: "", deleted: true, updated_at: now })
        return true
      }
      yield* store.remove(member.tenantId, comment.comment_id)
      if (comment.parent_id !== null) {
        const parent = yield* store.find(member.tenantId, comment.parent_id)
        if (parent !== undefined && parent.deleted && (yield* store.countReplies(member.tenantId, parent.comment_id)) === 0) {
          yield* store.remove(member.tenantId, parent.comment_id)
        }
      }
      return false
    })
    const detail = (tombstoned: boolean) => ({ ...payloadOf(comment), tombstoned, moderated: !isAuthor(member, comment) })
    // The audit entry says whether it became a tombstone, which only the transaction knows.
    yield* Effect.flatMap(Transactor, (transactor) =>
      transactor.transaction(Effect.flatMap(change, (tombstoned) =>
        AuditLog.record(member.tenantId, {
          workspace_id: comment.workspace_id,
          action: "comment.deleted",
          actor: actorOf(member),
          target: { type: "comment", id: comment.comment_id },
          detail: detail(tombstoned)
        }))))
  })

/**
 * The directory's names of the users who wrote `comments`, each looked up
 * once however many comments they wrote (a page of a thread is mostly a
 * few people). A user the directory no longer knows, and an author that is
 * not a user, has no entry: the caller says "a member".
 */
export const authorNames = (
  tenantId: TenantId,
  comments: ReadonlyArray<Comment>
): Effect.Effect<ReadonlyMap<string, string>, StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const directory = yield* DirectoryStore
    const names = new Map<string, string>()
    const seen = new Set<string>()
    for (const { author } of comments) {
      if (author.type !== "user" || seen.has(author.id)) continue
      seen.add(author.id)
      const user = yield* directory.findUser(tenantId, author.id as UserId)
      if (user !== undefined) names.set(author.id, user.name)
    }
    return names
  })

/** The most comments a share page shows. */
export const sharedLimit = 200

/** A comment as a share page shows it: its author by name (never by address). */
export interface SharedComment {
  readonly comment: Comment
  readonly authorName: string
}

/**
 * The comments a public link's visitor or an embed's viewer reads, oldest
 * first, at most `sharedLimit`: only when their grant allows `comment`
 * (rule 1: with only view, `undefined`, and the page has no comment
 * section). They read; they do not post (decision 0019).
 */
export const shared = (
  viewer: SharedViews.Viewer
): Effect.Effect<{ readonly comments: ReadonlyArray<SharedComment>; readonly more: boolean } | undefined, StoreError, CommentStore | DirectoryStore> =>
  Effect.gen(function*() {
    if (!viewer.grant.actions.includes("comment")) return undefined
    const tenantId = viewer.grant.tenant_id
    const rows = yield* (yield* CommentStore).list(tenantId, viewer.grant.subject_id as ReportId, {}, {
      take: sharedLimit + 1,
      sort: { field: "created_at", direction: "asc" },
      after: undefined,
      createdAtOrBefore: endOfTime
    })
    const names = yield* authorNames(tenantId, rows.slice(0, sharedLimit))
    return {
      comments: rows.slice(0, sharedLimit).map((comment) => ({ comment, authorName: names.get(comment.author.id) ?? "A member" })),
      more: rows.length > sharedLimit
    }
  })
