/**
 * Comments on reports and their visuals.
 *
 * It imports only from the folders before it in core's index.
 *
 * @since 0.1.0
 */
export * as Comment from "./Comment.ts"
export * as CommentStore from "./CommentStore.ts"
export * as Comments from "./Comments.ts"
