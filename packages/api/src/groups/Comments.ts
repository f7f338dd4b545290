/**
 * Threaded comments on reports (decision 0019).
 *
 * @since 0.1.0
 */
import { AuditLog, Comment, Workspace } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoints from "../Endpoints.ts"
import { Authentication } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import * as QueryParams from "../QueryParams.ts"
import * as ResourceEndpoints from "../ResourceEndpoints.ts"

/** Who wrote a comment: the actor, with their name in the directory so a thread reads without a lookup per author (decision 0024). */
export const CommentAuthor = Schema.Struct({
  ...AuditLog.Actor.fields,
  name: Schema.NullOr(Schema.String).annotate({
    description: "The author's name in the directory, as the list is read; null when the directory no longer knows them or the author is not a user"
  })
})

/** A comment as the API shows it. */
export const CommentJson = Schema.Struct({
  comment_id: Comment.CommentId,
  report_id: Schema.String,
  workspace_id: Workspace.WorkspaceId,
  visual_id: Schema.NullOr(Schema.String).annotate({ description: "The visual whose thread it is in; null for the report's own thread" }),
  parent_id: Schema.NullOr(Comment.CommentId).annotate({ description: "The thread's first comment it replies to; null when it starts a thread" }),
  author: CommentAuthor,
  text: Schema.String.annotate({ description: "Empty once deleted" }),
  deleted: Schema.Boolean.annotate({ description: "Deleted while it had replies: kept, without its text, so its thread still reads" }),
  edited_at: Schema.NullOr(Schema.Date).annotate({ description: "When its author last changed the text; null if never" }),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** Threaded comments on reports (the sharing action `comment`, decision 0019). */
export const CommentsGroup = HttpApiGroup.make("comments")
  .add(Endpoints.list("list", "/v1/reports/:id/comments", {
    params: ResourceEndpoints.idParams,
    query: {
      visual_id: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(100)).annotate({ description: "Only this visual's thread" })),
      ...QueryParams.page,
      sort: Schema.optionalKey(Schema.Literals(["created_at", "-created_at"]).annotate({
        description: "created_at: oldest first (a thread reads as a conversation); -created_at: newest first. Ties are broken by id ascending",
        default: "created_at"
      }))
    },
    item: CommentJson,
    error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound],
    description: "A report's comments: its own thread and each visual's, first comments and their replies (each names its `parent_id`), oldest first by default. " +
      "Deleted comments that have replies are listed as tombstones (`deleted: true`, no text). Open to every member who may read the report."
  }))
  .add(Endpoints.create("create", "/v1/reports/:id/comments", {
    params: ResourceEndpoints.idParams,
    payload: Comment.CommentCreate,
    success: CommentJson,
    error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.CommentInvalid],
    description: "Comments on the report, on one of its visuals (`visual_id`), or replies to a thread's first comment (`parent_id`; replies are one level deep). " +
      "Needs comment on the report or its workspace; tenant admins always may."
  }))
  .add(Endpoints.update("update", "/v1/comments/:id", {
    params: ResourceEndpoints.idParams,
    payload: Comment.CommentUpdate,
    success: CommentJson,
    error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.CommentDeleted],
    description: "Changes a comment's text: its author only, while they still hold comment on the report. Another member's comment is a 404 to them; an admin is refused (403): admins delete, they do not edit."
  }))
  .add(Endpoints.remove("delete", "/v1/comments/:id", {
    params: ResourceEndpoints.idParams,
    error: [Problems.Forbidden, Problems.NotFound],
    description: "Deletes a comment: its author, or a tenant admin (moderation). One with replies becomes a tombstone (no text, `deleted: true`); any other is removed. Another member's comment is a 404 to them."
  }))
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Threaded comments on reports and their visuals; every change is in the audit log.")
