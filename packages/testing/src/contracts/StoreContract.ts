/**
 * The store contract: one suite every storage adapter must pass unchanged
 * (the pattern of the Auth.js and better-auth adapter suites). An adapter's
 * test file calls `storeContract("name", layer)` with a layer providing every
 * store port.
 *
 * @since 0.1.0
 */
import { Idempotency, Ids, Pagination, ServiceSecrets, Tenant, TenantStore, Transactor, Workspace, WorkspaceStore } from "@analytics/core"
import type { Stores } from "@analytics/core"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { auditStoreContract } from "./AuditStoreContract.ts"
import { commentStoreContract } from "./CommentStoreContract.ts"
import { datasetStoreContract } from "./DatasetStoreContract.ts"
import { directoryStoreContract } from "./DirectoryStoreContract.ts"
import { exportScheduleStoreContract } from "./ExportScheduleStoreContract.ts"
import { exportStoreContract } from "./ExportStoreContract.ts"
import { grantStoreContract } from "./GrantStoreContract.ts"
import { sessionStoreContract } from "./SessionStoreContract.ts"
import { webhookStoreContract } from "./WebhookStoreContract.ts"
import { alertSample, dashboardSample, datasetSample, reportSample, scheduleSample } from "./WorkspaceRecordSamples.ts"
import { workspaceRecordsContract } from "./WorkspaceRecordsContract.ts"
import { inFailedTransaction, insertTenant, insertWorkspace } from "../Fixtures.ts"

const newTenantId = Effect.map(Ids.uuidv7, (id) => id as Tenant.TenantId)

const makeTenant = insertTenant()

const makeWorkspace = (tenantId: Tenant.TenantId, name: string, createdAt: number) => insertWorkspace(tenantId, name, new Date(createdAt))

const page = (
  overrides: Partial<Pagination.PageQuery<WorkspaceStore.WorkspaceSortField>> = {}
): Pagination.PageQuery<WorkspaceStore.WorkspaceSortField> => ({
  take: 100,
  sort: { field: "created_at", direction: "desc" },
  after: undefined,
  createdAtOrBefore: new Date(8_000_000_000_000),
  ...overrides
})

const ids = (rows: ReadonlyArray<Workspace.Workspace>) => rows.map((w) => w.workspace_id)

/** Registers the contract suite for one adapter. */
export const storeContract = <E>(name: string, stores: Layer.Layer<Stores, E>): void => {
  describe(`store contract: ${name}`, () => {
    layer(stores, { timeout: "60 seconds" })((it) => {
      webhookStoreContract(it)
      directoryStoreContract(it)
      // The one port shape of workspace records, for every kind; then what each kind adds.
      workspaceRecordsContract(it, datasetSample)
      workspaceRecordsContract(it, reportSample)
      workspaceRecordsContract(it, dashboardSample)
      workspaceRecordsContract(it, alertSample)
      workspaceRecordsContract(it, scheduleSample)
      datasetStoreContract(it)
      auditStoreContract(it)
      grantStoreContract(it)
      exportStoreContract(it)
      exportScheduleStoreContract(it)
      commentStoreContract(it)
      sessionStoreContract(it)

      it.effect("tenants round-trip with every field", () =>
        Effect.gen(function*() {
          const store = yield* TenantStore.TenantStore
          const tenant = yield* makeTenant
          const found = yield* store.findTenant(tenant.tenant_id)
          assert.deepStrictEqual(found, tenant)
          assert.strictEqual(yield* store.findTenant(yield* newTenantId), undefined)
        }))

      it.effect("a tenant's plan and negotiated limits change, and the change is announced", () =>
        Effect.gen(function*() {
          const store = yield* TenantStore.TenantStore
          const tenant = yield* makeTenant
          const announced = yield* Queue.unbounded<Tenant.TenantId>()
          yield* Effect.forkScoped(Stream.runForEach(yield* store.changes, (id) => Queue.offer(announced, id)))
          const custom = new Tenant.Tenant({
            ...tenant,
            plan: "custom",
            limits: { burst: 1_000, sustained: 50_000, query_concurrency: 12 }
          })
          assert.isTrue(yield* store.updateTenant(custom))
          assert.deepStrictEqual(yield* store.findTenant(tenant.tenant_id), custom)
          assert.strictEqual(yield* Queue.take(announced), tenant.tenant_id)
          const { limits: _, ...rest } = custom
          const starter = new Tenant.Tenant({ ...rest, plan: "starter" })
          assert.isTrue(yield* store.updateTenant(starter))
          assert.deepStrictEqual(yield* store.findTenant(tenant.tenant_id), starter)
          const unknown = new Tenant.Tenant({ ...rest, tenant_id: yield* newTenantId })
          assert.isFalse(yield* store.updateTenant(unknown))
          assert.strictEqual(yield* store.findTenant(unknown.tenant_id), undefined)
        }).pipe(Effect.scoped))

      it.effect("tokens are found by hash only, and a hash is stored once", () =>
        Effect.gen(function*() {
          const store = yield* TenantStore.TenantStore
          const tenant = yield* makeTenant
          const tokenHash = `hash-${yield* Ids.uuidv7}`
          const token = {
            tokenId: yield* Ids.uuidv7,
            tenantId: tenant.tenant_id,
            tokenHash,
            userId: "u-1",
            email: "ana@example.com",
            roles: ["admin", "analyst"],
            createdAt: new Date(1_700_000_000_456)
          }
          assert.isTrue(yield* store.insertToken(token))
          assert.isFalse(yield* store.insertToken({ ...token, tokenId: yield* Ids.uuidv7, userId: "u-2" }))
          assert.deepStrictEqual(yield* store.findTokenByHash(tokenHash), token)
          assert.strictEqual(yield* store.findTokenByHash(`${tokenHash}-other`), undefined)
          // Listed by role in their tenant, and removed by id in their tenant only.
          const scim = { ...token, tokenId: yield* Ids.uuidv7, tokenHash: `${tokenHash}-scim`, roles: ["scim"], createdAt: new Date(1_700_000_000_999) }
          assert.isTrue(yield* store.insertToken(scim))
          assert.deepStrictEqual(yield* store.listTokens(tenant.tenant_id, "scim"), [scim])
          assert.deepStrictEqual(yield* store.listTokens(tenant.tenant_id, "analyst"), [token])
          const other = yield* makeTenant
          assert.deepStrictEqual(yield* store.listTokens(other.tenant_id, "scim"), [])
          // A removal is announced: authenticators forget the token at once.
          const announced = yield* Queue.unbounded<Tenant.TenantId>()
          yield* Effect.forkScoped(Stream.runForEach(yield* store.changes, (id) => Queue.offer(announced, id)))
          assert.isFalse(yield* store.removeToken(other.tenant_id, scim.tokenId))
          assert.isTrue(yield* store.removeToken(tenant.tenant_id, scim.tokenId))
          assert.isFalse(yield* store.removeToken(tenant.tenant_id, scim.tokenId))
          assert.strictEqual(yield* store.findTokenByHash(scim.tokenHash), undefined)
          assert.strictEqual(yield* Queue.take(announced), tenant.tenant_id)
        }).pipe(Effect.scoped))

      it.effect("a workspace is found in its tenant and in no other", () =>
        Effect.gen(function*() {
          const store = yield* WorkspaceStore.WorkspaceStore
          const a = yield* makeTenant
          const b = yield* makeTenant
          const workspace = yield* makeWorkspace(a.tenant_id, "Sales", 1_000)
          assert.deepStrictEqual(yield* store.find(a.tenant_id, workspace.workspace_id), workspace)
          assert.strictEqual(yield* store.find(b.tenant_id, workspace.workspace_id), undefined)
          assert.deepStrictEqual(ids(yield* store.list(b.tenant_id, page())), [])
          assert.isFalse(yield* store.remove(b.tenant_id, workspace.workspace_id))
          assert.deepStrictEqual(yield* store.find(a.tenant_id, workspace.workspace_id), workspace)
        }))

      it.effect("lists newest first, ties broken by id ascending, after a keyset position", () =>
        Effect.gen(function*() {
          const store = yield* WorkspaceStore.WorkspaceStore
          const { tenant_id } = yield* makeTenant
          const w1 = yield* makeWorkspace(tenant_id, "one", 1_000)
          const w2 = yield* makeWorkspace(tenant_id, "two", 2_000)
          const w3 = yield* makeWorkspace(tenant_id, "three", 2_000)
          const w4 = yield* makeWorkspace(tenant_id, "four", 3_000)
          const [tieFirst, tieSecond] = [w2, w3].sort((x, y) => (x.workspace_id < y.workspace_id ? -1 : 1))
          const all = yield* store.list(tenant_id, page())
          assert.deepStrictEqual(ids(all), ids([w4, tieFirst, tieSecond, w1]))
          const after = yield* store.list(tenant_id, page({ after: { value: 2_000, id: tieFirst.workspace_id } }))
          assert.deepStrictEqual(ids(after), ids([tieSecond, w1]))
          const two = yield* store.list(tenant_id, page({ take: 2 }))
          assert.deepStrictEqual(ids(two), ids([w4, tieFirst]))
          const ascending = yield* store.list(tenant_id, page({ sort: { field: "created_at", direction: "asc" } }))
          assert.deepStrictEqual(ids(ascending), ids([w1, tieFirst, tieSecond, w4]))
        }))

      it.effect("sorts names by code point, both directions, ties by id", () =>
        Effect.gen(function*() {
          const store = yield* WorkspaceStore.WorkspaceStore
          const { tenant_id } = yield* makeTenant
          const lower = yield* makeWorkspace(tenant_id, "alpha", 1_000)
          const upper = yield* makeWorkspace(tenant_id, "Zulu", 1_000)
          const accent = yield* makeWorkspace(tenant_id, "\u00e9clair", 1_000)
          const dupA = yield* makeWorkspace(tenant_id, "beta", 1_000)
          const dupB = yield* makeWorkspace(tenant_id, "beta", 1_000)
          const [d1, d2] = [dupA, dupB].sort((x, y) => (x.workspace_id < y.workspace_id ? -1 : 1))
          const asc = yield* store.list(tenant_id, page({ sort: { field: "name", direction: "asc" } }))
          assert.deepStrictEqual(ids(asc), ids([upper, lower, d1, d2, accent]))
          const desc = yield* store.list(tenant_id, page({ sort: { field: "name", direction: "desc" } }))
          assert.deepStrictEqual(ids(desc), ids([accent, d1, d2, lower, upper]))
          const afterDup = yield* store.list(
            tenant_id,
            page({ sort: { field: "name", direction: "asc" }, after: { value: "beta", id: d1.workspace_id } })
          )
          assert.deepStrictEqual(ids(afterDup), ids([d2, accent]))
        }))

      it.effect("hides rows created after the snapshot bound", () =>
        Effect.gen(function*() {
          const store = yield* WorkspaceStore.WorkspaceStore
          const { tenant_id } = yield* makeTenant
          const old = yield* makeWorkspace(tenant_id, "old", 5_000)
          yield* makeWorkspace(tenant_id, "new", 5_001)
          const seen = yield* store.list(tenant_id, page({ createdAtOrBefore: new Date(5_000) }))
          assert.deepStrictEqual(ids(seen), ids([old]))
        }))

      it.effect("a removed workspace is gone, and the list goes on past it", () =>
        Effect.gen(function*() {
          const store = yield* WorkspaceStore.WorkspaceStore
          const { tenant_id } = yield* makeTenant
          const w1 = yield* makeWorkspace(tenant_id, "one", 1_000)
          const w2 = yield* makeWorkspace(tenant_id, "two", 2_000)
          const w3 = yield* makeWorkspace(tenant_id, "three", 3_000)
          assert.isTrue(yield* store.remove(tenant_id, w2.workspace_id))
          assert.isFalse(yield* store.remove(tenant_id, w2.workspace_id))
          assert.strictEqual(yield* store.find(tenant_id, w2.workspace_id), undefined)
          const after = yield* store.list(tenant_id, page({ after: { value: 2_000, id: w2.workspace_id } }))
          assert.deepStrictEqual(ids(after), ids([w1]))
          assert.deepStrictEqual(ids(yield* store.list(tenant_id, page())), ids([w3, w1]))
        }))

      const scope = "POST /v1/workspaces"
      const record = (owner: string, createdAt: number): Omit<Idempotency.IdempotencyRecord, "response"> => ({
        owner,
        scope,
        key: "key-1",
        fingerprint: "f1",
        createdAt: new Date(createdAt)
      })
      const held = (owner: string, createdAt: number) => ({ owner, scope, key: "key-1", createdAt: new Date(createdAt) })
      const cutoffs = (expired: number, abandoned: number) => ({
        expiredBefore: new Date(expired),
        abandonedBefore: new Date(abandoned)
      })
      const response = { status: 201, headers: { "content-type": "application/json" }, body: "{\"a\":1}" }

      it.effect("idempotency: reserve, see the reservation, complete, replay", () =>
        Effect.gen(function*() {
          const store = yield* Idempotency.IdempotencyStore
          const owner = yield* Ids.uuidv7
          const first = yield* store.reserve(record(owner, 10_000), cutoffs(0, 0))
          assert.strictEqual(first._tag, "Reserved")
          const again = yield* store.reserve({ ...record(owner, 10_001), fingerprint: "f2" }, cutoffs(0, 0))
          assert.strictEqual(again._tag, "Existing")
          if (again._tag === "Existing") {
            assert.strictEqual(again.record.fingerprint, "f1")
            assert.strictEqual(again.record.response, undefined)
            assert.strictEqual(again.record.createdAt.getTime(), 10_000)
          }
          yield* store.complete(held(owner, 10_000), response)
          yield* store.release(held(owner, 10_000))
          const done = yield* store.reserve(record(owner, 10_002), cutoffs(0, 0))
          assert.deepStrictEqual(done._tag === "Existing" ? done.record.response : undefined, response)
          const otherOwner = yield* store.reserve(record(yield* Ids.uuidv7, 10_003), cutoffs(0, 0))
          assert.strictEqual(otherOwner._tag, "Reserved")
          const otherScope = yield* store.reserve({ ...record(owner, 10_004), scope: "POST /v1/tenants" }, cutoffs(0, 0))
          assert.strictEqual(otherScope._tag, "Reserved")
        }))

      it.effect("idempotency: release frees a key; expired and abandoned records are taken over", () =>
        Effect.gen(function*() {
          const store = yield* Idempotency.IdempotencyStore
          const owner = yield* Ids.uuidv7
          yield* store.reserve(record(owner, 10_000), cutoffs(0, 0))
          yield* store.release(held(owner, 10_000))
          assert.strictEqual((yield* store.reserve(record(owner, 11_000), cutoffs(0, 0)))._tag, "Reserved")
          // still running and not yet abandoned
          assert.strictEqual((yield* store.reserve(record(owner, 12_000), cutoffs(0, 10_999)))._tag, "Existing")
          // abandoned: no response and older than the cutoff
          assert.strictEqual((yield* store.reserve(record(owner, 12_000), cutoffs(0, 11_001)))._tag, "Reserved")
          yield* store.complete(held(owner, 12_000), response)
          // completed records are never abandoned, only expired
          assert.strictEqual((yield* store.reserve(record(owner, 13_000), cutoffs(0, 20_000)))._tag, "Existing")
          assert.strictEqual((yield* store.reserve(record(owner, 13_000), cutoffs(12_001, 0)))._tag, "Reserved")
        }))

      it.effect("idempotency: a request whose reservation was taken over cannot complete or release it", () =>
        Effect.gen(function*() {
          const store = yield* Idempotency.IdempotencyStore
          const owner = yield* Ids.uuidv7
          yield* store.reserve(record(owner, 10_000), cutoffs(0, 0))
          // the first request stalls; a retry takes the abandoned key over
          assert.strictEqual((yield* store.reserve(record(owner, 80_000), cutoffs(0, 70_000)))._tag, "Reserved")
          yield* store.complete(held(owner, 10_000), { ...response, body: "stale" })
          yield* store.release(held(owner, 10_000))
          const current = yield* store.reserve(record(owner, 80_001), cutoffs(0, 0))
          assert.strictEqual(current._tag, "Existing")
          if (current._tag === "Existing") {
            assert.strictEqual(current.record.createdAt.getTime(), 80_000)
            assert.strictEqual(current.record.response, undefined)
          }
          yield* store.complete(held(owner, 80_000), response)
          const replay = yield* store.reserve(record(owner, 80_002), cutoffs(0, 0))
          assert.deepStrictEqual(replay._tag === "Existing" ? replay.record.response : undefined, response)
        }))

      it.effect("idempotency: an answered record is handed back whole until it expires, then taken over", () =>
        Effect.gen(function*() {
          const store = yield* Idempotency.IdempotencyStore
          const owner = yield* Ids.uuidv7
          const answered = { status: 422, headers: { "content-type": "application/problem+json", "x-a": "1" }, body: "{\"code\":\"x\"}" }
          yield* store.reserve(record(owner, 10_000), cutoffs(0, 0))
          yield* store.complete(held(owner, 10_000), answered)
          // Past the in-flight timeout: an answered record is not abandoned.
          const replay = yield* store.reserve({ ...record(owner, 90_000), fingerprint: "f2" }, cutoffs(9_999, 80_000))
          assert.strictEqual(replay._tag, "Existing")
          if (replay._tag === "Existing") {
            assert.deepStrictEqual(
              { ...replay.record, createdAt: replay.record.createdAt.getTime() },
              { owner, scope, key: "key-1", fingerprint: "f1", createdAt: 10_000, response: answered }
            )
          }
          // Expired: taken over, unanswered, by the new fingerprint.
          assert.strictEqual((yield* store.reserve({ ...record(owner, 90_001), fingerprint: "f2" }, cutoffs(10_001, 0)))._tag, "Reserved")
          const current = yield* store.reserve(record(owner, 90_002), cutoffs(0, 0))
          assert.strictEqual(current._tag, "Existing")
          if (current._tag === "Existing") {
            assert.strictEqual(current.record.fingerprint, "f2")
            assert.strictEqual(current.record.createdAt.getTime(), 90_001)
            assert.strictEqual(current.record.response, undefined)
          }
        }))

      it.effect("idempotency: a reserve, complete or release in a failed transaction is undone", () =>
        Effect.gen(function*() {
          const store = yield* Idempotency.IdempotencyStore
          const owner = yield* Ids.uuidv7
          const current = Effect.map(store.reserve(record(owner, 99_000), cutoffs(0, 0)), (result) =>
            result._tag === "Existing"
              ? { fingerprint: result.record.fingerprint, createdAt: result.record.createdAt.getTime(), response: result.record.response }
              : "reserved")

          // A first reservation undone: the key is free again.
          assert.isTrue(yield* inFailedTransaction(store.reserve({ ...record(owner, 10_000), key: "fresh" }, cutoffs(0, 0))))
          assert.strictEqual((yield* store.reserve({ ...record(owner, 10_001), key: "fresh" }, cutoffs(0, 0)))._tag, "Reserved")

          yield* store.reserve(record(owner, 10_000), cutoffs(0, 0))
          const unanswered = { fingerprint: "f1", createdAt: 10_000, response: undefined }
          assert.isTrue(yield* inFailedTransaction(store.complete(held(owner, 10_000), response)))
          assert.deepStrictEqual(yield* current, unanswered)
          assert.isTrue(yield* inFailedTransaction(store.release(held(owner, 10_000))))
          assert.deepStrictEqual(yield* current, unanswered)
          // A take-over of the abandoned reservation undone: the first one holds the key again.
          assert.isTrue(yield* inFailedTransaction(store.reserve({ ...record(owner, 80_000), fingerprint: "f2" }, cutoffs(0, 70_000))))
          assert.deepStrictEqual(yield* current, unanswered)

          yield* store.complete(held(owner, 10_000), response)
          // An expired answer taken over, undone: the answer is back.
          assert.isTrue(yield* inFailedTransaction(store.reserve({ ...record(owner, 90_000), fingerprint: "f2" }, cutoffs(10_001, 0))))
          assert.deepStrictEqual(yield* current, { fingerprint: "f1", createdAt: 10_000, response })
        }))

      it.effect("idempotency: purging deletes only records created before the bound", () =>
        Effect.gen(function*() {
          const store = yield* Idempotency.IdempotencyStore
          const owner = yield* Ids.uuidv7
          yield* store.reserve({ ...record(owner, 1_000), key: "old" }, cutoffs(0, 0))
          yield* store.reserve({ ...record(owner, 5_000), key: "new" }, cutoffs(0, 0))
          assert.isAtLeast(yield* store.purgeExpired(new Date(2_000)), 1)
          const old = yield* store.reserve({ ...record(owner, 6_000), key: "old" }, cutoffs(0, 0))
          assert.strictEqual(old._tag, "Reserved")
          const kept = yield* store.reserve({ ...record(owner, 6_000), key: "new" }, cutoffs(0, 0))
          assert.strictEqual(kept._tag, "Existing")
        }))

      it.effect("idempotency: of many concurrent reservations exactly one wins", () =>
        Effect.gen(function*() {
          const store = yield* Idempotency.IdempotencyStore
          const owner = yield* Ids.uuidv7
          const results = yield* Effect.all(
            Array.from({ length: 12 }, () => store.reserve(record(owner, 10_000), cutoffs(0, 0))),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(results.filter((r) => r._tag === "Reserved").length, 1)
        }))

      it.effect("service secrets: created once, the same for every caller", () =>
        Effect.gen(function*() {
          const secrets = yield* ServiceSecrets.ServiceSecrets
          const name = `secret-${yield* Ids.uuidv7}`
          let n = 0
          const generate = Effect.sync(() => `value-${++n}`)
          const values = yield* Effect.all(
            Array.from({ length: 6 }, () => secrets.getOrCreate(name, generate)),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(new Set(values).size, 1)
          assert.strictEqual(yield* secrets.getOrCreate(name, generate), values[0])
        }))

      it.effect("a transaction commits together or not at all", () =>
        Effect.gen(function*() {
          const { transaction } = yield* Transactor.Transactor
          const store = yield* WorkspaceStore.WorkspaceStore
          const { tenant_id } = yield* makeTenant
          assert.isTrue(yield* inFailedTransaction(makeWorkspace(tenant_id, "doomed", 1_000)))
          assert.deepStrictEqual(ids(yield* store.list(tenant_id, page())), [])
          const kept = yield* transaction(makeWorkspace(tenant_id, "kept", 1_000))
          assert.deepStrictEqual(ids(yield* store.list(tenant_id, page())), [kept.workspace_id])
        }))

      it.effect("times survive with millisecond precision under any clock", () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(1_767_225_600_987)
          const store = yield* WorkspaceStore.WorkspaceStore
          const { tenant_id } = yield* makeTenant
          const w = yield* makeWorkspace(tenant_id, "precise", 1_767_225_600_987)
          const found = yield* store.find(tenant_id, w.workspace_id)
          assert.strictEqual(found?.created_at.getTime(), 1_767_225_600_987)
        }))
    })
  })
}
