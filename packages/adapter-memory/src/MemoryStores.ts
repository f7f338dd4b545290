/**
 * Every store port in memory. Each operation runs synchronously inside one
 * Effect step, so each is atomic with respect to the others.
 *
 * @since 0.1.0
 */
import {
  AuditLog,
  CommentStore,
  DeliveryStore,
  ExportStore,
  GrantStore,
  DirectoryStore,
  Idempotency,
  InvitationStore,
  Pagination,
  ServiceSecrets,
  SessionStore,
  Tenant,
  TenantBranding,
  TenantStore,
  type Stores,
  Transactor,
  WebhookStore,
  type Workspace,
  WorkspaceStore
} from "@analytics/core"
import { Context, Effect, Layer, PubSub, Stream } from "effect"
import * as MemoryAuditStore from "./MemoryAuditStore.ts"
import * as MemoryCommentStore from "./MemoryCommentStore.ts"
import * as MemoryDirectoryStore from "./MemoryDirectoryStore.ts"
import * as MemoryExportStore from "./MemoryExportStore.ts"
import * as MemoryGrantStore from "./MemoryGrantStore.ts"
import * as MemoryInvitationStore from "./MemoryInvitationStore.ts"
import * as MemorySessionStore from "./MemorySessionStore.ts"
import * as MemoryWebhookStores from "./MemoryWebhookStores.ts"
import * as MemoryWorkspaceRecords from "./MemoryWorkspaceRecords.ts"
import { restore, set, transactor, write } from "./Transactions.ts"

export { transactor } from "./Transactions.ts"

type IdempotencyRecord = Idempotency.IdempotencyRecord

const idempotencyKey = (owner: string, scope: string, key: string) => `${owner}\u0000${scope}\u0000${key}`

/** Whether a record is still the unanswered reservation `reservation` made. */
const holds = (record: IdempotencyRecord, reservation: Idempotency.Reservation) =>
  record.response === undefined && record.createdAt.getTime() === reservation.createdAt.getTime()

/** The in-memory TenantStore. */
export const tenantStore = Effect.gen(function*() {
  const tenants = new Map<string, Tenant.Tenant>()
  const tokens = new Map<string, TenantStore.ApiTokenRecord>()
  const changes = yield* PubSub.unbounded<Tenant.TenantId>()
  return TenantStore.TenantStore.of({
    insertTenant: (tenant) => write(() => [undefined, set(tenants, tenant.tenant_id, tenant)]),
    findTenant: (tenantId) => Effect.sync(() => tenants.get(tenantId)),
    updateTenant: (tenant) =>
      write((): [boolean, () => void] =>
        tenants.has(tenant.tenant_id) ? [true, set(tenants, tenant.tenant_id, tenant)] : [false, () => {}]
      ).pipe(Effect.tap((updated) => updated ? PubSub.publish(changes, tenant.tenant_id) : Effect.void)),
    changes: Effect.map(PubSub.subscribe(changes), Stream.fromSubscription),
    insertToken: (token) =>
      write(() => tokens.has(token.tokenHash) ? [false, () => {}] : [true, set(tokens, token.tokenHash, token)]),
    findTokenByHash: (tokenHash) => Effect.sync(() => tokens.get(tokenHash)),
    listTokens: (tenantId, role) =>
      Effect.sync(() =>
        [...tokens.values()]
          .filter((t) => t.tenantId === tenantId && t.roles.includes(role))
          .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.tokenId < b.tokenId ? -1 : 1))
      ),
    removeToken: (tenantId, tokenId) =>
      write(() => {
        const found = [...tokens.values()].find((t) => t.tenantId === tenantId && t.tokenId === tokenId)
        if (found === undefined) return [false, () => {}]
        const undo = restore(tokens, found.tokenHash)
        tokens.delete(found.tokenHash)
        return [true, undo]
      }).pipe(Effect.tap((removed) => removed ? PubSub.publish(changes, tenantId) : Effect.void))
  })
})

/** One tenant's workspaces, with their rows kept sorted per sort order until the next write. */
interface TenantWorkspaces {
  readonly rows: Map<string, Workspace.Workspace>
  readonly sorted: Map<string, ReadonlyArray<Workspace.Workspace>>
}

/** The in-memory DirectoryStore. */
export const directoryStore = MemoryDirectoryStore.make

/** The in-memory WorkspaceStore. */
export const workspaceStore = Effect.sync(() => {
  const byTenant = new Map<string, TenantWorkspaces>()
  const tenant = (tenantId: string) => {
    let entry = byTenant.get(tenantId)
    if (entry === undefined) byTenant.set(tenantId, entry = { rows: new Map(), sorted: new Map() })
    return entry
  }
  /** A write to a tenant's rows, whose sorted copies it (and its undo) invalidates. */
  const change = (entry: TenantWorkspaces, undo: () => void): () => void => {
    entry.sorted.clear()
    return () => {
      undo()
      entry.sorted.clear()
    }
  }
  return WorkspaceStore.WorkspaceStore.of({
    insert: (workspace) =>
      write(() => {
        const entry = tenant(workspace.tenant_id)
        return [undefined, change(entry, set(entry.rows, workspace.workspace_id, workspace))]
      }),
    find: (tenantId, workspaceId) => Effect.sync(() => byTenant.get(tenantId)?.rows.get(workspaceId)),
    list: (tenantId, query) =>
      Effect.sync(() => {
        const entry = byTenant.get(tenantId)
        if (entry === undefined) return []
        // Sorting happens once per write, not per request: pages are cut from the sorted rows.
        const order = Pagination.formatSort(query.sort)
        let sorted = entry.sorted.get(order)
        if (sorted === undefined) {
          sorted = Pagination.sortInMemory(entry.rows.values(), query.sort, WorkspaceStore.workspaceKey)
          entry.sorted.set(order, sorted)
        }
        return Pagination.pageOfSorted(sorted, query, WorkspaceStore.workspaceKey, (w) => w.created_at)
      }),
    remove: (tenantId, workspaceId) =>
      write(() => {
        const entry = byTenant.get(tenantId)
        if (entry === undefined || !entry.rows.has(workspaceId)) return [false, () => {}]
        const undo = restore(entry.rows, workspaceId)
        entry.rows.delete(workspaceId)
        return [true, change(entry, undo)]
      })
  })
})

/** The undo of a write that changed nothing. */
const unchanged = () => {}

/**
 * The in-memory IdempotencyStore. Each write knows the record it replaces,
 * so its undo puts that back without reading the map again; instants are
 * compared as numbers (comparing `Date`s with `<` converts both on every
 * call); a lost reservation's undo is shared.
 */
export const idempotencyStore = Effect.sync(() => {
  const records = new Map<string, IdempotencyRecord>()
  /** How to put back what `id` held before a write (`previous`: nothing). */
  const putBack = (id: string, previous: IdempotencyRecord | undefined) =>
    previous === undefined ? () => void records.delete(id) : () => void records.set(id, previous)
  return Idempotency.IdempotencyStore.of({
    reserve: (record, cutoffs) =>
      write((): readonly [Idempotency.ReserveResult, () => void] => {
        const id = idempotencyKey(record.owner, record.scope, record.key)
        const existing = records.get(id)
        if (existing !== undefined) {
          const created = existing.createdAt.getTime()
          const stale = created < cutoffs.expiredBefore.getTime() ||
            (existing.response === undefined && created < cutoffs.abandonedBefore.getTime())
          if (!stale) return [{ _tag: "Existing", record: existing }, unchanged]
        }
        records.set(id, {
          owner: record.owner,
          scope: record.scope,
          key: record.key,
          fingerprint: record.fingerprint,
          createdAt: record.createdAt,
          response: undefined
        })
        return [{ _tag: "Reserved" }, putBack(id, existing)]
      }),
    complete: (reservation, response) =>
      write(() => {
        const id = idempotencyKey(reservation.owner, reservation.scope, reservation.key)
        const existing = records.get(id)
        if (existing === undefined || !holds(existing, reservation)) return [undefined, unchanged]
        records.set(id, { ...existing, response })
        return [undefined, putBack(id, existing)]
      }),
    release: (reservation) =>
      write(() => {
        const id = idempotencyKey(reservation.owner, reservation.scope, reservation.key)
        const existing = records.get(id)
        if (existing === undefined || !holds(existing, reservation)) return [undefined, unchanged]
        records.delete(id)
        return [undefined, putBack(id, existing)]
      }),
    purgeExpired: (before) =>
      write(() => {
        const undos: Array<() => void> = []
        for (const [id, record] of records) {
          if (record.createdAt >= before) continue
          undos.push(restore(records, id))
          records.delete(id)
        }
        return [undos.length, () => undos.forEach((undo) => undo())]
      })
  })
})

/** The in-memory ServiceSecrets: generated once per process. */
export const serviceSecrets = Effect.sync(() => {
  const secrets = new Map<string, string>()
  return ServiceSecrets.ServiceSecrets.of({
    getOrCreate: (name, generate) =>
      Effect.suspend(() => {
        const existing = secrets.get(name)
        if (existing !== undefined) return Effect.succeed(existing)
        return Effect.map(generate, (value) => {
          const raced = secrets.get(name)
          if (raced !== undefined) return raced
          secrets.set(name, value)
          return value
        })
      })
  })
})

/** The in-memory BrandingStore. */
export const brandingStore = Effect.sync(() => {
  const brandings = new Map<string, TenantBranding.Branding>()
  return TenantBranding.BrandingStore.of({
    find: (tenantId) => Effect.sync(() => brandings.get(tenantId)),
    save: (tenantId, branding) => write(() => [undefined, set(brandings, tenantId, branding)])
  })
})

/** The webhook registrations and their deliveries, sharing one state. */
const webhookStores = Layer.effectContext(Effect.map(MemoryWebhookStores.make, ({ deliveryStore, webhookStore }) =>
  Context.make(WebhookStore.WebhookStore, webhookStore).pipe(Context.add(DeliveryStore.DeliveryStore, deliveryStore))))

const tenants = Layer.effect(TenantStore.TenantStore, tenantStore)

/** Every store port, in memory, fresh for each build of the layer. */
export const layer: Layer.Layer<Stores> = Layer.mergeAll(
  Layer.effect(WorkspaceStore.WorkspaceStore, workspaceStore),
  Layer.effect(Idempotency.IdempotencyStore, idempotencyStore),
  Layer.effect(ServiceSecrets.ServiceSecrets, serviceSecrets),
  Layer.succeed(Transactor.Transactor, transactor),
  Layer.effect(DirectoryStore.DirectoryStore, directoryStore),
  Layer.effect(InvitationStore.InvitationStore, MemoryInvitationStore.make),
  Layer.effect(SessionStore.SessionStore, MemorySessionStore.make),
  MemoryWorkspaceRecords.layer,
  Layer.effect(AuditLog.AuditStore, MemoryAuditStore.make),
  Layer.effect(GrantStore.GrantStore, MemoryGrantStore.make),
  Layer.effect(ExportStore.ExportStore, MemoryExportStore.make),
  Layer.effect(CommentStore.CommentStore, MemoryCommentStore.make),
  Layer.effect(TenantBranding.BrandingStore, brandingStore),
  Layer.provide(webhookStores, tenants)
).pipe(Layer.provideMerge(tenants))
