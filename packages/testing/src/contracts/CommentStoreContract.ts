/**
 * The comment part of the store contract: comments round-trip in their
 * tenant only (tombstones included); a report's comments list by creation
 * in either direction, from a keyset position, up to a snapshot bound,
 * narrowed to one visual's thread; replies are counted. Run by
 * `storeContract` on every adapter.
 *
 * @since 0.1.0
 */
import { Comment, CommentStore, Ids, Pagination, Report, ReportStore, Tenant, Workspace } from "@analytics/core"
import type { Stores } from "@analytics/core"
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { insertTenant, insertWorkspace } from "../Fixtures.ts"

const at = (offset: number) => new Date(2_650_000_000_000 + offset)

/** A tenant, a workspace and a report of it (comments belong to a report). */
const arrange = Effect.gen(function*() {
  const tenantId = (yield* insertTenant({ createdAt: at(0) })).tenant_id as Tenant.TenantId
  const workspaceId = (yield* insertWorkspace(tenantId, "Sales", at(0))).workspace_id as Workspace.WorkspaceId
  const report = {
    report_id: (yield* Ids.uuidv7) as Report.ReportId,
    tenant_id: tenantId,
    workspace_id: workspaceId,
    name: "Sales overview",
    description: null,
    pages: [],
    filters: [],
    settings: { query_timeout_seconds: 30 },
    created_at: at(0),
    updated_at: at(0)
  } as Report.Report
  yield* (yield* ReportStore.ReportStore).insert(report)
  return { tenantId, workspaceId, reportId: report.report_id }
})

const newComment = (
  where: { readonly tenantId: Tenant.TenantId; readonly workspaceId: Workspace.WorkspaceId; readonly reportId: Report.ReportId },
  offset: number,
  overrides: Partial<Comment.Comment> = {}
) =>
  Effect.map(Ids.uuidv7, (id): Comment.Comment => ({
    comment_id: id as Comment.CommentId,
    tenant_id: where.tenantId,
    workspace_id: where.workspaceId,
    report_id: where.reportId,
    visual_id: null,
    parent_id: null,
    author: { type: "user", id: "u-1" },
    text: `Comment ${offset}: café, 東京, 👍`,
    deleted: false,
    edited_at: null,
    created_at: at(offset),
    updated_at: at(offset),
    ...overrides
  }))

const page = (overrides: Partial<Pagination.PageQuery<"created_at">> = {}): Pagination.PageQuery<"created_at"> => ({
  take: 100,
  sort: { field: "created_at", direction: "asc" },
  after: undefined,
  createdAtOrBefore: at(1_000_000),
  ...overrides
})

const ids = (comments: ReadonlyArray<Comment.Comment>) => comments.map((c) => c.comment_id)

/** Registers the comment tests on `it` (inside `storeContract`'s layer). */
export const commentStoreContract = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("comments round-trip (edited, then a tombstone) in their tenant only", () =>
    Effect.gen(function*() {
      const store = yield* CommentStore.CommentStore
      const where = yield* arrange
      const first = yield* newComment(where, 1, { visual_id: "by_region" })
      const reply = yield* newComment(where, 2, { visual_id: "by_region", parent_id: first.comment_id, author: { type: "user", id: "u-2" } })
      yield* store.insert(first)
      yield* store.insert(reply)
      assert.deepStrictEqual(yield* store.find(where.tenantId, first.comment_id), first)
      assert.deepStrictEqual(yield* store.find(where.tenantId, reply.comment_id), reply)
      const edited: Comment.Comment = { ...first, text: "Changed", edited_at: at(5), updated_at: at(5) }
      assert.isTrue(yield* store.update(edited))
      assert.deepStrictEqual(yield* store.find(where.tenantId, first.comment_id), edited)
      const tombstone: Comment.Comment = { ...edited, text: "", deleted: true, updated_at: at(6) }
      assert.isTrue(yield* store.update(tombstone))
      assert.deepStrictEqual(yield* store.find(where.tenantId, first.comment_id), tombstone)
      // Another tenant finds, changes, counts and removes none of them.
      const other = (yield* insertTenant({ createdAt: at(0) })).tenant_id as Tenant.TenantId
      assert.strictEqual(yield* store.find(other, first.comment_id), undefined)
      assert.isFalse(yield* store.update({ ...tombstone, tenant_id: other, text: "Theirs" }))
      assert.strictEqual(yield* store.countReplies(other, first.comment_id), 0)
      assert.deepStrictEqual(yield* store.list(other, where.reportId, {}, page()), [])
      assert.isFalse(yield* store.remove(other, reply.comment_id))
      assert.deepStrictEqual(yield* store.find(where.tenantId, first.comment_id), tombstone)
      // Ids that are no comment's are simply absent.
      assert.strictEqual(yield* store.find(where.tenantId, "not-a-uuid" as Comment.CommentId), undefined)
      assert.isFalse(yield* store.remove(where.tenantId, (yield* Ids.uuidv7) as Comment.CommentId))
      assert.isTrue(yield* store.remove(where.tenantId, reply.comment_id))
      assert.strictEqual(yield* store.find(where.tenantId, reply.comment_id), undefined)
      assert.isFalse(yield* store.remove(where.tenantId, reply.comment_id))
    }))

  it.effect("a report's comments list by creation either way, from a position, up to a bound, per visual; replies are counted", () =>
    Effect.gen(function*() {
      const store = yield* CommentStore.CommentStore
      const where = yield* arrange
      const elsewhere = yield* arrange
      const root = yield* newComment(where, 10)
      // Two at the same instant: the id breaks the tie, ascending in both directions.
      const sameA = yield* newComment(where, 20, { visual_id: "by_region" })
      const sameB = yield* newComment(where, 20, { visual_id: "by_region" })
      const [tieFirst, tieSecond] = sameA.comment_id < sameB.comment_id ? [sameA, sameB] : [sameB, sameA]
      const replyOne = yield* newComment(where, 30, { parent_id: root.comment_id })
      const replyTwo = yield* newComment(where, 40, { parent_id: root.comment_id })
      const late = yield* newComment(where, 2_000_000)
      const onOtherReport = yield* newComment(elsewhere, 15)
      // Out of creation order (a parent before its replies: a reply names an existing comment).
      for (const c of [late, root, replyTwo, sameA, onOtherReport, sameB, replyOne]) yield* store.insert(c)

      const oldestFirst = [root, tieFirst, tieSecond, replyOne, replyTwo]
      assert.deepStrictEqual(ids(yield* store.list(where.tenantId, where.reportId, {}, page())), ids(oldestFirst))
      const newestFirst = [replyTwo, replyOne, tieFirst, tieSecond, root]
      assert.deepStrictEqual(ids(yield* store.list(where.tenantId, where.reportId, {}, page({ sort: { field: "created_at", direction: "desc" } }))), ids(newestFirst))
      // From a keyset position, strictly after it, in each direction (through the tie).
      assert.deepStrictEqual(
        ids(yield* store.list(where.tenantId, where.reportId, {}, page({ take: 2, after: CommentStore.commentKey(tieFirst) }))),
        ids([tieSecond, replyOne])
      )
      assert.deepStrictEqual(
        ids(yield* store.list(where.tenantId, where.reportId, {}, page({ sort: { field: "created_at", direction: "desc" }, after: CommentStore.commentKey(tieFirst) }))),
        ids([tieSecond, root])
      )
      // The bound leaves out what came later; a visual's filter keeps its thread only.
      assert.deepStrictEqual(
        ids(yield* store.list(where.tenantId, where.reportId, {}, page({ createdAtOrBefore: at(3_000_000) }))),
        ids([...oldestFirst, late])
      )
      assert.deepStrictEqual(ids(yield* store.list(where.tenantId, where.reportId, { visualId: "by_region" }, page())), ids([tieFirst, tieSecond]))
      assert.deepStrictEqual(yield* store.list(where.tenantId, where.reportId, { visualId: "nothing" }, page()), [])
      assert.deepStrictEqual(ids(yield* store.list(where.tenantId, elsewhere.reportId, {}, page())), [])
      assert.deepStrictEqual(ids(yield* store.list(elsewhere.tenantId, elsewhere.reportId, {}, page())), ids([onOtherReport]))

      assert.strictEqual(yield* store.countReplies(where.tenantId, root.comment_id), 2)
      assert.strictEqual(yield* store.countReplies(where.tenantId, replyOne.comment_id), 0)
      yield* store.remove(where.tenantId, replyOne.comment_id)
      assert.strictEqual(yield* store.countReplies(where.tenantId, root.comment_id), 1)
    }))
}
