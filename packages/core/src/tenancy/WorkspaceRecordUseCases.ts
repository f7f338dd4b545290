/**
 * The use cases every kind of workspace record shares, written once over its
 * store (`WorkspaceRecords`): read one of the tenant (NotFound otherwise),
 * list a workspace's newest first, create with a fresh id and the time,
 * write a change stamped with the time, delete. Datasets, reports,
 * dashboards, alerts and export schedules build theirs on these and add
 * their own checks; who may call them is the policy's (decision 0018:
 * checked before the use case, or inside it where only it knows the
 * record, as for schedules' owners).
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import { NotFound, orNotFound, type StoreError } from "../platform/Errors.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { type InvalidSort, type NewestFirstRequest, type Page, paginateNewestFirst } from "../platform/Pagination.ts"
import type { TenantId } from "./Tenant.ts"
import type { WorkspaceId } from "./Workspace.ts"
import * as WorkspaceRecords from "./WorkspaceRecords.ts"
import * as Workspaces from "./Workspaces.ts"
import type { WorkspaceStore } from "./WorkspaceStore.ts"

/** A workspace record that also says when it last changed. */
export type Stamped = WorkspaceRecords.Owned & { readonly updated_at: Date }

/** What a new record's use case gives: every field but its id, its owners and its times, which `create` sets. */
export type Fields<A extends Stamped, Id extends string> = Omit<
  A,
  WorkspaceRecords.IdField<A, Id> | "tenant_id" | "workspace_id" | "created_at" | "updated_at"
>

/** A kind's read: the record of the tenant with this id, or NotFound. */
export type Get<A, S> = (tenantId: TenantId, id: string) => Effect.Effect<A, NotFound | StoreError, S>

/** A kind's list: one page of a workspace's records, newest first; NotFound for a workspace not of the tenant. */
export type List<A, S> = (
  tenantId: TenantId,
  workspaceId: WorkspaceId,
  request: NewestFirstRequest
) => Effect.Effect<Page<A>, NotFound | StoreError | CursorError | InvalidSort, S | WorkspaceStore | CursorCodec>

/**
 * A kind's create, from what the client sent, failing with its own errors `E` too;
 * `More`: what it takes after them (who acts, for the audit log).
 */
export type Create<I, A, E, R, More extends ReadonlyArray<unknown> = []> = (tenantId: TenantId, input: I, ...more: More) => Effect.Effect<A, E | StoreError, R>

/** A kind's change of a record, from what the client sent, failing with its own errors `E` too; `More` as for `Create`. */
export type Update<C, A, E, R, More extends ReadonlyArray<unknown> = []> = (tenantId: TenantId, id: string, change: C, ...more: More) => Effect.Effect<A, E | NotFound | StoreError, R>

/** A kind's delete; `More` as for `Create`. */
export type Remove<S, More extends ReadonlyArray<unknown> = []> = (tenantId: TenantId, id: string, ...more: More) => Effect.Effect<void, NotFound | StoreError, S>

/** The record of the tenant with this id, if any (a use case that answers absence its own way). */
export const find = <A extends Stamped, Id extends string, S>(
  kind: WorkspaceRecords.Kind<A, Id, S>,
  tenantId: TenantId,
  id: string
): Effect.Effect<A | undefined, StoreError, S> => Effect.flatMap(kind.store, (store) => store.find(tenantId, id as Id))

/** The record of the tenant with this id, or NotFound. */
export const get = <A extends Stamped, Id extends string, S>(
  kind: WorkspaceRecords.Kind<A, Id, S>,
  tenantId: TenantId,
  id: string
): Effect.Effect<A, NotFound | StoreError, S> => find(kind, tenantId, id).pipe(orNotFound(kind.resource, id))

/** One page of a workspace's records, newest first; NotFound for a workspace not of the tenant. */
export const list = <A extends Stamped, Id extends string, S>(
  kind: WorkspaceRecords.Kind<A, Id, S>,
  tenantId: TenantId,
  workspaceId: WorkspaceId,
  request: NewestFirstRequest
): Effect.Effect<Page<A>, NotFound | StoreError | CursorError | InvalidSort, S | WorkspaceStore | CursorCodec> =>
  Effect.andThen(
    Workspaces.ensureExists(tenantId, workspaceId),
    Effect.flatMap(kind.store, (store) => paginateNewestFirst(request, (query) => store.list(tenantId, workspaceId, query), WorkspaceRecords.keyOf(kind)))
  )

/**
 * Creates a record of `owner`'s workspace: the time, then a fresh id, are
 * handed to `fields` (which may check them, and fail), and the record (id,
 * owners, fields, creation and change times, in that order) is stored.
 */
export const create = <A extends Stamped, Id extends string, S, E, R>(
  kind: WorkspaceRecords.Kind<A, Id, S>,
  owner: { readonly tenant_id: TenantId; readonly workspace_id: WorkspaceId },
  fields: (id: Id, now: Date) => Effect.Effect<Fields<A, Id>, E, R>
): Effect.Effect<A, E | StoreError, S | R> =>
  Effect.gen(function*() {
    const now = new Date(yield* Clock.currentTimeMillis)
    const id = (yield* uuidv7) as Id
    const given = yield* fields(id, now)
    const record = { [kind.id]: id, tenant_id: owner.tenant_id, workspace_id: owner.workspace_id, ...given, created_at: now, updated_at: now } as unknown as A
    yield* (yield* kind.store).insert(record)
    return record
  })

/** `create` in a workspace the client named: NotFound for one not of the tenant, before anything else. */
export const createIn = <A extends Stamped, Id extends string, S, E, R>(
  kind: WorkspaceRecords.Kind<A, Id, S>,
  tenantId: TenantId,
  workspaceId: WorkspaceId,
  fields: (id: Id, now: Date) => Effect.Effect<Fields<A, Id>, E, R>
): Effect.Effect<A, E | NotFound | StoreError, S | R | WorkspaceStore> =>
  Effect.andThen(
    Workspaces.ensureExists(tenantId, workspaceId),
    create(kind, { tenant_id: tenantId, workspace_id: workspaceId }, fields)
  )

/**
 * Changes the record `current` reads: `change` makes the new one from it
 * and the time (and may check it, and fail), which is written stamped with
 * that time; NotFound, naming `id`, when it is gone by then.
 */
export const update = <A extends Stamped, Id extends string, S, E1, R1, E2, R2>(
  kind: WorkspaceRecords.Kind<A, Id, S>,
  id: string,
  current: Effect.Effect<A, E1, R1>,
  change: (current: A, now: Date) => Effect.Effect<A, E2, R2>
): Effect.Effect<A, E1 | E2 | NotFound | StoreError, S | R1 | R2> =>
  Effect.gen(function*() {
    const found = yield* current
    const now = new Date(yield* Clock.currentTimeMillis)
    const updated: A = { ...(yield* change(found, now)), updated_at: now }
    if (!(yield* (yield* kind.store).update(updated))) return yield* new NotFound({ resource: kind.resource, id })
    return updated
  })

/** Deletes the record of the tenant with this id; NotFound when there is none. */
export const remove = <A extends Stamped, Id extends string, S>(
  kind: WorkspaceRecords.Kind<A, Id, S>,
  tenantId: TenantId,
  id: string
): Effect.Effect<void, NotFound | StoreError, S> =>
  Effect.flatMap(kind.store, (store) => store.remove(tenantId, id as Id)).pipe(
    Effect.flatMap((removed) => removed ? Effect.void : Effect.fail(new NotFound({ resource: kind.resource, id })))
  )
