/**
 * Comments on reports and their visuals.
 *
 * @since 0.1.0
 */
export * as Comment from "./Comment.ts"
export * as CommentStore from "./CommentStore.ts"
export * as Comments from "./Comments.ts"
