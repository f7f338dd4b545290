/**
 * The one port shape of records that belong to a workspace of a tenant:
 * datasets, reports, dashboards, alerts and export schedules (comments share
 * its tenant-scoped part). Each resource's store is an instance of it, with
 * its own extras only where it needs them; each storage adapter implements
 * it once and instantiates it per resource.
 *
 * Every method is scoped by tenant: another tenant's record, or an id the
 * domain never issues, is a missing one (decision 0007).
 *
 * @since 0.1.0
 */
import { type Context, Effect } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { TenantId } from "./Tenant.ts"
import type { WorkspaceId } from "./Workspace.ts"

/** What every workspace record carries: its owners and its creation time (its position in lists). */
export interface Owned {
  readonly tenant_id: TenantId
  readonly workspace_id: WorkspaceId
  readonly created_at: Date
}

/** Records of one kind, found, replaced and deleted by id within their tenant. */
export interface TenantRecords<A, Id extends string> {
  readonly insert: (record: A) => Effect.Effect<void, StoreError>
  /** The record of this tenant with this id; `undefined` when there is none. */
  readonly find: (tenantId: TenantId, id: Id) => Effect.Effect<A | undefined, StoreError>
  /** Replaces a record; `false` when there is none in its tenant. */
  readonly update: (record: A) => Effect.Effect<boolean, StoreError>
  /** Deletes a record; `false` when there was none in this tenant. */
  readonly remove: (tenantId: TenantId, id: Id) => Effect.Effect<boolean, StoreError>
}

/**
 * `store` with each record read once over the returned store's life: the
 * first `find` of a tenant's id is shared by every later and concurrent
 * one, and any write forgets them all. For one request that reads the same
 * records many times (a shared report's visuals over one dataset); a longer
 * life would serve stale records.
 */
export const readOnce = <S extends TenantRecords<any, any>>(store: S): S => {
  type A = Effect.Success<ReturnType<S["find"]>>
  const reads = new Map<string, Effect.Effect<A, StoreError>>()
  const forgetting = <B>(write: Effect.Effect<B, StoreError>) => Effect.ensuring(write, Effect.sync(() => reads.clear()))
  return {
    ...store,
    find: (tenantId: TenantId, id: string) =>
      Effect.suspend(() => {
        const key = `${tenantId}/${id}`
        const known = reads.get(key)
        if (known !== undefined) return known
        return Effect.flatMap(Effect.cached(store.find(tenantId, id) as Effect.Effect<A, StoreError>), (once) => {
          reads.set(key, once)
          return once
        })
      }),
    insert: (record: unknown) => forgetting(store.insert(record)),
    update: (record: unknown) => forgetting(store.update(record)),
    remove: (tenantId: TenantId, id: string) => forgetting(store.remove(tenantId, id))
  }
}

/** Records of one kind that belong to a workspace: tenant records, listed per workspace. */
export interface WorkspaceRecords<A, Id extends string> extends TenantRecords<A, Id> {
  /** One page of a workspace's records, newest first (`created_at` descending, then id ascending). */
  readonly list: (tenantId: TenantId, workspaceId: WorkspaceId, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<A>, StoreError>
}

/** The field of `A` that holds its id. */
export type IdField<A, Id extends string> = { readonly [K in keyof A]: A[K] extends Id ? K : never }[keyof A] & string

/** One kind of workspace record: what a missing one is called, the field of its id, and its store. */
export interface Kind<A extends Owned, Id extends string, S> {
  /** The `resource` of its NotFound (`dataset`, `schedule`, …). */
  readonly resource: string
  readonly id: IdField<A, Id>
  readonly store: Context.Key<S, WorkspaceRecords<A, Id>>
}

/** Declares a kind of workspace record. */
export const kind = <A extends Owned, Id extends string, S>(kind: Kind<A, Id, S>): Kind<A, Id, S> => kind

/** A record's id. */
export const idOf = <A extends Owned, Id extends string, S>(kind: Kind<A, Id, S>, record: A): Id => record[kind.id] as Id

/** A record's position in the newest-first list: its creation time, then its id. */
export const keyOf = <A extends Owned, Id extends string, S>(kind: Kind<A, Id, S>) => (record: A): Keyset => ({
  value: record.created_at.getTime(),
  id: idOf(kind, record)
})
