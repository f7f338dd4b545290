/**
 * The audit log (decision 0014): who did what to which target,
 * when, with the full payload. Append-only: the port has no way to change
 * or delete an entry. An entry is written in the transaction of the change
 * it records, and published as an `audit.event` (the Scale plan's opt-in
 * firehose) in the same transaction.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Option, Schema, Stream } from "effect"
import * as Csv from "../platform/Csv.ts"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import type { StoreError } from "../platform/Errors.ts"
import { Transactor } from "../platform/Transactor.ts"
import { EventPublisher } from "../webhooks/EventPublisher.ts"
import * as Events from "../webhooks/Events.ts"
import { randomBytes, uuidv7From } from "../platform/Ids.ts"
import { type InvalidSort, type Keyset, type NewestFirstRequest, type Page, type PageQuery, paginateNewestFirst } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"

/** Who acted: a member (or token), SCIM, the service, or a visitor of a share (`grant`: its id), who has no name. */
export const Actor = Schema.Struct({ type: Schema.Literals(["user", "api_token", "scim", "system", "grant"]), id: Schema.String })
/** Who acted. */
export type Actor = typeof Actor.Type

/** A signed-in member (or API token) as the log names who acted. */
export const actorOf = (who: { readonly userId: string }): Actor => ({ type: "user", id: who.userId })

/** The service itself, acting on its own (a session reaching its expiry). */
export const system: Actor = { type: "system", id: "service" }

/** An entry of the log. */
export interface AuditEntry {
  readonly entry_id: string
  readonly tenant_id: TenantId
  readonly workspace_id: string | null
  /** What happened, such as `grant.created`. */
  readonly action: string
  readonly actor: Actor
  readonly target: { readonly type: string; readonly id: string }
  /** The full payload of the change (never a secret). */
  readonly detail: Readonly<Record<string, unknown>>
  readonly created_at: Date
}

/** Which entries a list shows; every field narrows it. */
export interface AuditFilter {
  readonly action?: string | undefined
  readonly targetType?: string | undefined
  readonly targetId?: string | undefined
  readonly actorId?: string | undefined
  /** Entries written at or after this instant. */
  readonly since?: Date | undefined
  /** Entries written before this instant. */
  readonly before?: Date | undefined
}

/** An entry's position in the newest-first list. */
export const auditKey = (entry: AuditEntry): Keyset => ({ value: entry.created_at.getTime(), id: entry.entry_id })

/** Whether an entry passes a filter. */
export const matches = (entry: AuditEntry, filter: AuditFilter): boolean =>
  (filter.action === undefined || entry.action === filter.action) &&
  (filter.targetType === undefined || entry.target.type === filter.targetType) &&
  (filter.targetId === undefined || entry.target.id === filter.targetId) &&
  (filter.actorId === undefined || entry.actor.id === filter.actorId) &&
  (filter.since === undefined || entry.created_at.getTime() >= filter.since.getTime()) &&
  (filter.before === undefined || entry.created_at.getTime() < filter.before.getTime())

/** Port: the audit log. Append and read, nothing else. */
export class AuditStore extends Context.Service<AuditStore, {
  /** Appends an entry (in the caller's transaction, if any). */
  readonly append: (entry: AuditEntry) => Effect.Effect<void, StoreError>
  /** One page of the tenant's entries passing `filter`, newest first. */
  readonly list: (tenantId: TenantId, filter: AuditFilter, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<AuditEntry>, StoreError>
}>()("@analytics/core/AuditStore") {}

/**
 * Records what an actor did, in the caller's transaction: the entry, and
 * its `audit.event` for the firehose.
 */
export const record = (
  tenantId: TenantId,
  entry: Recorded
): Effect.Effect<AuditEntry, StoreError, AuditStore | EventPublisher> =>
  Effect.gen(function*() {
    // One instant for the entry and its event; two ids from one draw. Written on every audited change.
    const now = yield* Clock.currentTimeMillis
    const random = yield* randomBytes(20)
    const appended: AuditEntry = {
      ...entry,
      entry_id: uuidv7From(now, random.subarray(0, 10)),
      tenant_id: tenantId,
      created_at: new Date(now)
    }
    yield* (yield* AuditStore).append(appended)
    // Built unchecked: every field is typed where the entry is made (`Events.envelope`).
    // A tenant-wide entry (no workspace) concerns every workspace: "*" (decision 0010).
    const event = Events.envelope("audit.event", uuidv7From(now, random.subarray(10)), appended.created_at, entry.workspace_id ?? Events.everyWorkspace, {
      action: entry.action,
      actor: entry.actor,
      target: entry.target,
      detail: entry.detail
    })
    yield* (yield* EventPublisher).publish(tenantId, event)
    return appended
  })

/** What a change writes to the log: the entry, without what `record` adds. */
export type Recorded = Pick<AuditEntry, "workspace_id" | "action" | "actor" | "target" | "detail">

/**
 * Runs a change and records what it did (`entryOf` its result; nothing
 * when `undefined`) in one transaction: a change is never made without its
 * entry, nor an entry written for a change that failed.
 */
export const recorded = <A, E, R>(
  tenantId: TenantId,
  change: Effect.Effect<A, E, R>,
  entryOf: (result: A) => Recorded | undefined
): Effect.Effect<A, E | StoreError, R | AuditStore | EventPublisher | Transactor> =>
  Effect.flatMap(Transactor, (transactor) =>
    transactor.transaction(Effect.tap(change, (result): Effect.Effect<unknown, StoreError, AuditStore | EventPublisher> => {
      const entry = entryOf(result)
      return entry === undefined ? Effect.void : record(tenantId, entry)
    })))

/** What writing an entry needs besides the change: the log, the firehose's publisher, and one transaction for both. */
export type Recording = AuditStore | EventPublisher | Transactor

/**
 * How the log shows one kind of record: the type its entries name (the
 * `report` of `report.created`, the target's type) and what of a record
 * they carry. `detail` picks fields: never a secret (webhook secrets,
 * tokens, passwords, signed URLs) and never tenant rows or measured values.
 */
export interface Shown<A> {
  readonly type: string
  readonly id: (record: A) => string
  readonly workspace: (record: A) => string | null
  readonly detail: (record: A) => Readonly<Record<string, unknown>>
}

/** The entry of `verb` (`created`, `deleted`, …) done to `record` by `by`; `extra` joins its detail. */
export const entryOn = <A>(shown: Shown<A>, verb: string, record: A, by: Actor, extra: Readonly<Record<string, unknown>> = {}): Recorded => ({
  workspace_id: shown.workspace(record),
  action: `${shown.type}.${verb}`,
  actor: by,
  target: { type: shown.type, id: shown.id(record) },
  detail: { ...shown.detail(record), ...extra }
})

/** A value as JSON with every object's keys sorted: two records equal as data read the same (a store may reorder keys). */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v)

/** The fields whose values differ between two details, each as it was and as it is. */
export const changes = (
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>
): Record<string, { readonly from: unknown; readonly to: unknown }> =>
  Object.fromEntries([...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((field) => canonical(before[field]) !== canonical(after[field]))
    .map((field) => [field, { from: before[field] ?? null, to: after[field] ?? null }]))

/** Creates a record with `create` and records `<type>.created` with it, in one transaction. */
export const created = <A, E, R>(
  tenantId: TenantId,
  shown: Shown<A>,
  by: Actor,
  create: Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreError, R | Recording> => recorded(tenantId, create, (record) => entryOn(shown, "created", record, by))

/**
 * Reads a record (`current`), changes it (`change`, given what was read) and
 * records `<type>.<verb>` (`updated` by default) with the record as it is
 * and `changes`, each changed field from and to, in one transaction.
 */
export const updated = <A, B extends A, E1, R1, E2, R2>(
  tenantId: TenantId,
  shown: Shown<A>,
  by: Actor,
  current: Effect.Effect<A, E1, R1>,
  change: (current: A) => Effect.Effect<B, E2, R2>,
  verb = "updated"
): Effect.Effect<B, E1 | E2 | StoreError, R1 | R2 | Recording> =>
  Effect.flatMap(Transactor, (transactor) =>
    transactor.transaction(Effect.gen(function*() {
      const before = yield* current
      const after = yield* change(before)
      yield* record(tenantId, entryOn(shown, verb, after, by, { changes: changes(shown.detail(before), shown.detail(after)) }))
      return after
    })))

/**
 * Reads a record (`current`), deletes it (`remove`) and records
 * `<type>.deleted` with it as it was, in one transaction; the record as it was.
 */
export const deleted = <A, E1, R1, E2, R2>(
  tenantId: TenantId,
  shown: Shown<A>,
  by: Actor,
  current: Effect.Effect<A, E1, R1>,
  remove: (current: A) => Effect.Effect<unknown, E2, R2>
): Effect.Effect<A, E1 | E2 | StoreError, R1 | R2 | Recording> =>
  Effect.flatMap(Transactor, (transactor) =>
    transactor.transaction(Effect.gen(function*() {
      const before = yield* current
      yield* remove(before)
      yield* record(tenantId, entryOn(shown, "deleted", before, by))
      return before
    })))

/** One page of the tenant's log, newest first. */
export const list = (
  tenantId: TenantId,
  filter: AuditFilter,
  request: NewestFirstRequest
): Effect.Effect<Page<AuditEntry>, StoreError | CursorError | InvalidSort, AuditStore | CursorCodec> =>
  Effect.flatMap(AuditStore, (store) => paginateNewestFirst(request, (query) => store.list(tenantId, filter, query), auditKey))

/** The columns of the log's CSV, in order: the entry's fields, its detail as JSON. */
export const csvColumns = [
  "created_at", "action", "actor_type", "actor_id", "target_type", "target_id", "workspace_id", "entry_id", "detail"
] as const

/** Entries read for the CSV per store query. */
const csvPageSize = 500

/**
 * The tenant's entries passing `filter`, newest first, as a CSV file
 * (decision 0025): a header line, a line per entry, read from the store a
 * page at a time as the file is written, so a long log is never held whole.
 * Only entries written by the time it starts.
 */
export const csv = (tenantId: TenantId, filter: AuditFilter): Stream.Stream<Uint8Array, StoreError, AuditStore> =>
  Stream.unwrap(Effect.gen(function*() {
    const store = yield* AuditStore
    const now = new Date(yield* Clock.currentTimeMillis)
    const encoder = new TextEncoder()
    const lines = Stream.paginate<Keyset | undefined, string, StoreError, never>(undefined, (after) =>
      Effect.map(
        store.list(tenantId, filter, { take: csvPageSize, sort: { field: "created_at", direction: "desc" }, after, createdAtOrBefore: now }),
        (entries) => [
          entries.map((e) =>
            Csv.line(csvColumns, {
              created_at: e.created_at,
              action: e.action,
              actor_type: e.actor.type,
              actor_id: e.actor.id,
              target_type: e.target.type,
              target_id: e.target.id,
              workspace_id: e.workspace_id,
              entry_id: e.entry_id,
              detail: JSON.stringify(e.detail)
            })
          ),
          entries.length < csvPageSize ? Option.none() : Option.some(auditKey(entries[entries.length - 1]!))
        ] as const
      ))
    return Stream.concat(Stream.make(Csv.header(csvColumns)), lines).pipe(Stream.map((text) => encoder.encode(text)))
  }))
