/**
 * Every store port of `@analytics/core` over `SqlClient`: one implementation
 * for PostgreSQL and PGlite. Every query names its tenant; concurrency rests
 * on single statements (`ON CONFLICT`), never on read-then-write.
 *
 * @since 0.1.0
 */
import {
  AuditLog,
  CommentStore,
  DeliveryStore,
  DirectoryStore,
  Errors,
  ExportStore,
  GrantStore,
  Idempotency,
  InvitationStore,
  type Plan,
  ServiceSecrets,
  SessionStore,
  type Stores,
  Tenant,
  TenantBranding,
  TenantStore,
  Transactor,
  WebhookStore,
  Workspace,
  WorkspaceStore
} from "@analytics/core"
import { PgClient } from "@effect/sql-pg"
import { Clock, Context, Effect, Layer, Option, PubSub, type Redacted, Stream } from "effect"
import type { MigrationError } from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { failAs, isId } from "./StoreErrors.ts"
import { migrate } from "./Migrations.ts"
import { listen } from "./Listen.ts"
import * as PgliteClient from "./PgliteClient.ts"
import * as SqlAuditStore from "./SqlAuditStore.ts"
import * as SqlCommentStore from "./SqlCommentStore.ts"
import * as SqlDirectoryStore from "./SqlDirectoryStore.ts"
import * as SqlExportStore from "./SqlExportStore.ts"
import * as SqlGrantStore from "./SqlGrantStore.ts"
import * as SqlInvitationStore from "./SqlInvitationStore.ts"
import * as SqlSessionStore from "./SqlSessionStore.ts"
import * as SqlWebhookStores from "./SqlWebhookStores.ts"
import * as SqlWorkspaceRecords from "./SqlWorkspaceRecords.ts"

// --- tenants -----------------------------------------------------------------

interface TenantRow {
  readonly tenant_id: string
  readonly name: string
  readonly plan: string
  readonly limits: Plan.NegotiatedLimits | null
  readonly created_at: Date
}

/** A tenant's negotiated limits as a jsonb parameter (SQL NULL when none). */
const limitsJson = (tenant: Tenant.Tenant): string | null =>
  tenant.limits === undefined ? null : JSON.stringify(tenant.limits)

/** The channel tenant updates are announced on, to every process on the database. */
const tenantChangesChannel = "analytics_tenant_changes"

interface TokenRow {
  readonly token_id: string
  readonly tenant_id: string
  readonly token_hash: string
  readonly user_id: string
  readonly email: string | null
  readonly roles: ReadonlyArray<string>
  readonly created_at: Date
}

const toToken = (row: TokenRow): TenantStore.ApiTokenRecord => ({
  tokenId: row.token_id,
  tenantId: row.tenant_id as Tenant.TenantId,
  tokenHash: row.token_hash,
  userId: row.user_id,
  email: row.email,
  roles: row.roles,
  createdAt: row.created_at
})

/** The TenantStore on SQL. */
export const tenantStore: Effect.Effect<TenantStore.TenantStore["Service"], never, SqlClient.SqlClient> = Effect.gen(
  function*() {
    const sql = yield* SqlClient.SqlClient
    const local = yield* PubSub.unbounded<Tenant.TenantId>()
    const tokenColumns = sql.literal("token_id, tenant_id, token_hash, user_id, email, roles, created_at")
    return TenantStore.TenantStore.of({
      insertTenant: (tenant) =>
        sql`INSERT INTO tenants (tenant_id, name, plan, limits, created_at)
          VALUES (${tenant.tenant_id}, ${tenant.name}, ${tenant.plan}, ${limitsJson(tenant)}::jsonb, ${tenant.created_at})`.pipe(
          Effect.asVoid,
          failAs("TenantStore.insertTenant")
        ),
      updateTenant: (tenant) => {
        if (!isId(tenant.tenant_id)) return Effect.succeed(false)
        // One statement updates and announces; the announcement is sent only if the update commits.
        return sql`WITH updated AS (
            UPDATE tenants SET plan = ${tenant.plan}, limits = ${limitsJson(tenant)}::jsonb
            WHERE tenant_id = ${tenant.tenant_id} RETURNING tenant_id
          )
          SELECT pg_notify(${tenantChangesChannel}, tenant_id::text) FROM updated`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.tap((updated) => updated ? PubSub.publish(local, tenant.tenant_id) : Effect.void),
          failAs("TenantStore.updateTenant")
        )
      },
      changes: Effect.gen(function*() {
        const here = Stream.fromSubscription(yield* PubSub.subscribe(local))
        // Other processes' updates (none on PGlite); while listening is down, they arrive by the cache's expiry.
        const remote = Option.map(yield* listen(tenantChangesChannel, "tenant changes"), Stream.map((id) => id as Tenant.TenantId))
        return Option.match(remote, { onNone: () => here, onSome: (others) => Stream.merge(here, others) })
      }),
      findTenant: (tenantId) => {
        if (!isId(tenantId)) return Effect.succeed(undefined)
        return sql<TenantRow>`SELECT tenant_id, name, plan, limits, created_at FROM tenants WHERE tenant_id = ${tenantId}`.pipe(
          // Rows were validated on the way in.
          Effect.map(([row]) =>
            row === undefined ? undefined : new Tenant.Tenant({
              tenant_id: row.tenant_id as Tenant.TenantId,
              name: row.name,
              plan: row.plan as Plan.Plan,
              ...(row.limits === null ? {} : { limits: row.limits }),
              created_at: row.created_at
            }, { disableChecks: true })
          ),
          failAs("TenantStore.findTenant")
        )
      },
      insertToken: (token) =>
        sql`INSERT INTO api_tokens (token_id, tenant_id, token_hash, user_id, email, roles, created_at)
          VALUES (${token.tokenId}, ${token.tenantId}, ${token.tokenHash}, ${token.userId}, ${token.email},
            ${token.roles}, ${token.createdAt})
          ON CONFLICT (token_hash) DO NOTHING
          RETURNING token_id`.pipe(
          Effect.map((rows) => rows.length > 0),
          failAs("TenantStore.insertToken")
        ),
      findTokenByHash: (tokenHash) =>
        sql<TokenRow>`SELECT ${tokenColumns} FROM api_tokens WHERE token_hash = ${tokenHash}`.pipe(
          Effect.map(([row]) => row === undefined ? undefined : toToken(row)),
          failAs("TenantStore.findTokenByHash")
        ),
      listTokens: (tenantId, role) => {
        if (!isId(tenantId)) return Effect.succeed([])
        return sql<TokenRow>`SELECT ${tokenColumns} FROM api_tokens WHERE tenant_id = ${tenantId} AND ${role} = ANY (roles)
          ORDER BY created_at, token_id`.pipe(Effect.map((rows) => rows.map(toToken)), failAs("TenantStore.listTokens"))
      },
      removeToken: (tenantId, tokenId) => {
        if (!isId(tenantId) || !isId(tokenId)) return Effect.succeed(false)
        // Deletes and announces, as updateTenant does: authenticators everywhere forget the token.
        return sql`WITH removed AS (
            DELETE FROM api_tokens WHERE tenant_id = ${tenantId} AND token_id = ${tokenId} RETURNING tenant_id
          )
          SELECT pg_notify(${tenantChangesChannel}, tenant_id::text) FROM removed`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.tap((removed) => removed ? PubSub.publish(local, tenantId as Tenant.TenantId) : Effect.void),
          failAs("TenantStore.removeToken")
        )
      }
    })
  }
)

// --- workspaces ------------------------------------------------------------------

interface WorkspaceRow {
  readonly workspace_id: string
  readonly tenant_id: string
  readonly name: string
  readonly description: string | null
  readonly created_at: Date
}

const toWorkspace = (row: WorkspaceRow): Workspace.Workspace =>
  new Workspace.Workspace({
    workspace_id: row.workspace_id as Workspace.WorkspaceId,
    tenant_id: row.tenant_id as Tenant.TenantId,
    name: row.name,
    description: row.description,
    created_at: row.created_at
  }, { disableChecks: true })

/** The WorkspaceStore on SQL. */
export const workspaceStore: Effect.Effect<WorkspaceStore.WorkspaceStore["Service"], never, SqlClient.SqlClient> =
  Effect.map(SqlClient.SqlClient, (sql) => {
    const columns = sql.literal("workspace_id, tenant_id, name, description, created_at")
    return WorkspaceStore.WorkspaceStore.of({
      insert: (workspace) =>
        sql`INSERT INTO workspaces (workspace_id, tenant_id, name, description, created_at)
          VALUES (${workspace.workspace_id}, ${workspace.tenant_id}, ${workspace.name}, ${workspace.description},
            ${workspace.created_at})`.pipe(Effect.asVoid, failAs("WorkspaceStore.insert")),
      find: (tenantId, workspaceId) => {
        if (!isId(tenantId) || !isId(workspaceId)) return Effect.succeed(undefined)
        return sql<WorkspaceRow>`SELECT ${columns} FROM workspaces
          WHERE tenant_id = ${tenantId} AND workspace_id = ${workspaceId}`.pipe(
          Effect.map(([row]) => row === undefined ? undefined : toWorkspace(row)),
          failAs("WorkspaceStore.find")
        )
      },
      list: (tenantId, query) => {
        if (!isId(tenantId)) return Effect.succeed([])
        // Names compare by code point (COLLATE "C"), as `applyInMemory` compares JS strings.
        const byName = query.sort.field === "name"
        const field = sql.literal(byName ? `name COLLATE "C"` : "created_at")
        const desc = query.sort.direction === "desc"
        const after = query.after
        // Strictly after (value, id) in "field <direction>, id asc" order; no row
        // comparison because the two keys run in different directions. The
        // redundant inclusive bound lets the index seek to the page instead of
        // filtering every earlier row.
        const afterClause = after === undefined ? sql.literal("") : (() => {
          const value = byName ? String(after.value) : new Date(after.value)
          return sql`AND ${field} ${sql.literal(desc ? "<=" : ">=")} ${value}
            AND (${field} ${sql.literal(desc ? "<" : ">")} ${value}
              OR (${field} = ${value} AND workspace_id > ${after.id}))`
        })()
        return sql<WorkspaceRow>`SELECT ${columns} FROM workspaces
          WHERE tenant_id = ${tenantId} AND created_at <= ${query.createdAtOrBefore} ${afterClause}
          ORDER BY ${field} ${sql.literal(desc ? "DESC" : "ASC")}, workspace_id ASC
          LIMIT ${query.take}`.pipe(
          Effect.map((rows) => rows.map(toWorkspace)),
          failAs("WorkspaceStore.list")
        )
      },
      remove: (tenantId, workspaceId) => {
        if (!isId(tenantId) || !isId(workspaceId)) return Effect.succeed(false)
        return sql`DELETE FROM workspaces WHERE tenant_id = ${tenantId} AND workspace_id = ${workspaceId}
          RETURNING workspace_id`.pipe(
          Effect.map((rows) => rows.length > 0),
          failAs("WorkspaceStore.remove")
        )
      }
    })
  })

// --- idempotency -------------------------------------------------------------------

interface IdempotencyRow {
  readonly owner: string
  readonly scope: string
  readonly key: string
  readonly fingerprint: string
  readonly created_at: Date
  readonly response_status: number | null
  readonly response_headers: Readonly<Record<string, string>> | null
  readonly response_body: string | null
}

const toRecord = (row: IdempotencyRow): Idempotency.IdempotencyRecord => ({
  owner: row.owner,
  scope: row.scope,
  key: row.key,
  fingerprint: row.fingerprint,
  createdAt: row.created_at,
  response: row.response_status === null
    ? undefined
    : { status: row.response_status, headers: row.response_headers ?? {}, body: row.response_body ?? "" }
})

/**
 * How often `reserve` retries when the record it lost to was released before
 * it could be read. Each retry needs another request to release in that
 * instant, so more than a couple means something is wrong.
 */
const reserveAttempts = 5

/** The IdempotencyStore on SQL. */
export const idempotencyStore: Effect.Effect<Idempotency.IdempotencyStore["Service"], never, SqlClient.SqlClient> =
  Effect.map(SqlClient.SqlClient, (sql) => {
    /**
     * The existing record after a lost reservation, read by its own
     * statement (a snapshot taken after the insert gave way); retries when
     * it was released in between.
     */
    const existing = (
      record: Omit<Idempotency.IdempotencyRecord, "response">,
      cutoffs: { readonly expiredBefore: Date; readonly abandonedBefore: Date },
      attemptsLeft: number
    ): Effect.Effect<Idempotency.ReserveResult, SqlError | Errors.StoreError> =>
      Effect.gen(function*() {
        const [found] = yield* sql<IdempotencyRow>`SELECT owner, scope, key, fingerprint, created_at,
            response_status, response_headers, response_body
          FROM idempotency_keys
          WHERE owner = ${record.owner} AND scope = ${record.scope} AND key = ${record.key}`
        if (found !== undefined) return { _tag: "Existing", record: toRecord(found) } as const
        // Released between the two statements: try again.
        if (attemptsLeft > 1) return yield* reserve(record, cutoffs, attemptsLeft - 1)
        return yield* new Errors.StoreError({
          operation: "IdempotencyStore.reserve",
          cause: new Error("The key kept being released while it was being reserved")
        })
      })
    const reserve = (
      record: Omit<Idempotency.IdempotencyRecord, "response">,
      cutoffs: { readonly expiredBefore: Date; readonly abandonedBefore: Date },
      attemptsLeft: number
    ): Effect.Effect<Idempotency.ReserveResult, SqlError | Errors.StoreError> =>
      Effect.flatMap(
        // One statement decides: insert, or take over a stale record, or leave
        // a live one alone. The row lock of ON CONFLICT makes exactly one of
        // any number of concurrent callers win.
        //
        // The same statement also reads an answered, unexpired record (a
        // replay, the usual loser): one round trip instead of two. Its read
        // sees the snapshot from before the statement, and only such a record
        // is taken from it, as none can change unless it expires (complete,
        // release and take-over touch only unanswered or stale ones). Any
        // other loss (still running, or changed while the insert waited) is
        // read again by a statement of its own, as before.
        sql<IdempotencyRow & { readonly reserved: boolean }>`WITH taken AS (
            INSERT INTO idempotency_keys AS k (owner, scope, key, fingerprint, created_at)
            VALUES (${record.owner}, ${record.scope}, ${record.key}, ${record.fingerprint}, ${record.createdAt})
            ON CONFLICT (owner, scope, key) DO UPDATE SET
              fingerprint = excluded.fingerprint,
              created_at = excluded.created_at,
              response_status = NULL,
              response_headers = NULL,
              response_body = NULL
            WHERE k.created_at < ${cutoffs.expiredBefore}
              OR (k.response_status IS NULL AND k.created_at < ${cutoffs.abandonedBefore})
            RETURNING 1
          )
          SELECT EXISTS (SELECT 1 FROM taken) AS reserved, e.owner, e.scope, e.key, e.fingerprint, e.created_at,
              e.response_status, e.response_headers, e.response_body
            FROM (SELECT 1) AS one
            LEFT JOIN idempotency_keys e
              ON e.owner = ${record.owner} AND e.scope = ${record.scope} AND e.key = ${record.key}
                AND e.response_status IS NOT NULL AND e.created_at >= ${cutoffs.expiredBefore}`,
        ([row]): Effect.Effect<Idempotency.ReserveResult, SqlError | Errors.StoreError> => {
          if (row?.reserved === true) return Effect.succeed({ _tag: "Reserved" })
          if (row !== undefined && row.response_status !== null) return Effect.succeed({ _tag: "Existing", record: toRecord(row) })
          return existing(record, cutoffs, attemptsLeft)
        }
      )
    return Idempotency.IdempotencyStore.of({
      reserve: (record, cutoffs) =>
        reserve(record, cutoffs, reserveAttempts).pipe(
          Effect.catchTag("SqlError", (cause) =>
            Effect.fail(new Errors.StoreError({ operation: "IdempotencyStore.reserve", cause })))
        ),
      complete: ({ createdAt, key, owner, scope }, response) =>
        // Only the reservation this request holds: a successor that took the key over is left alone.
        sql`UPDATE idempotency_keys SET
            response_status = ${response.status},
            response_headers = ${JSON.stringify(response.headers)}::jsonb,
            response_body = ${response.body}
          WHERE owner = ${owner} AND scope = ${scope} AND key = ${key}
            AND created_at = ${createdAt} AND response_status IS NULL`.pipe(
          Effect.asVoid,
          failAs("IdempotencyStore.complete")
        ),
      release: ({ createdAt, key, owner, scope }) =>
        // Only this request's unanswered reservation: a stored response stays for replay.
        sql`DELETE FROM idempotency_keys
          WHERE owner = ${owner} AND scope = ${scope} AND key = ${key}
            AND created_at = ${createdAt} AND response_status IS NULL`.pipe(
          Effect.asVoid,
          failAs("IdempotencyStore.release")
        ),
      purgeExpired: (before) =>
        sql<{ readonly purged: number | bigint }>`WITH purged AS (
            DELETE FROM idempotency_keys WHERE created_at < ${before} RETURNING 1
          ) SELECT count(*) AS purged FROM purged`.pipe(
          Effect.map(([row]) => Number(row?.purged ?? 0)),
          failAs("IdempotencyStore.purgeExpired")
        )
    })
  })

// --- service secrets -------------------------------------------------------------------

/** ServiceSecrets on SQL: the first instance to store a secret wins, the others read it. */
export const serviceSecrets: Effect.Effect<ServiceSecrets.ServiceSecrets["Service"], never, SqlClient.SqlClient> =
  Effect.map(SqlClient.SqlClient, (sql) => {
    const read = (name: string) =>
      Effect.map(sql<{ readonly value: string }>`SELECT value FROM service_secrets WHERE name = ${name}`, ([row]) =>
        row?.value)
    return ServiceSecrets.ServiceSecrets.of({
      getOrCreate: (name, generate) =>
        Effect.gen(function*() {
          const existing = yield* read(name)
          if (existing !== undefined) return existing
          const value = yield* generate
          const inserted = yield* sql`INSERT INTO service_secrets (name, value) VALUES (${name}, ${value})
            ON CONFLICT (name) DO NOTHING RETURNING value`
          if (inserted.length > 0) return value
          // Another instance stored it first (its commit is what we waited on).
          const winner = yield* read(name)
          if (winner !== undefined) return winner
          return yield* Effect.die(new Error(`The service secret ${name} vanished while being created`))
        }).pipe(failAs("ServiceSecrets.getOrCreate"))
    })
  })

// --- transactions -------------------------------------------------------------------------

/** Wraps the unit's own failures, so that only the transaction's (BEGIN, COMMIT) become `StoreError`. */
class Inner {
  readonly error: unknown
  constructor(error: unknown) {
    this.error = error
  }
}

/** The Transactor on SQL: `withTransaction`, savepoints when nested. */
export const transactor: Effect.Effect<Transactor.Transactor["Service"], never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  (sql) =>
    Transactor.Transactor.of({
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        sql.withTransaction(Effect.mapError(effect, (error) => new Inner(error))).pipe(
          Effect.mapError((error) =>
            error instanceof Inner
              ? error.error as E
              : new Errors.StoreError({ operation: "Transactor.transaction", cause: error })
          )
        )
    })
)

// --- branding -----------------------------------------------------------------

interface BrandingRow {
  readonly name: string | null
  readonly logo: string | null
  readonly accent_color: string | null
  readonly updated_at: Date | null
}

/** Each tenant's branding: one row per tenant that set any. */
export const brandingStore: Effect.Effect<TenantBranding.BrandingStore["Service"], never, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return TenantBranding.BrandingStore.of({
    find: (tenantId) => {
      if (!isId(tenantId)) return Effect.succeed(undefined)
      // Validated on the way in.
      return sql<BrandingRow>`SELECT name, logo, accent_color, updated_at FROM tenant_branding WHERE tenant_id = ${tenantId}`.pipe(
        Effect.map((rows) => rows[0] as TenantBranding.Branding | undefined),
        failAs("BrandingStore.find")
      )
    },
    save: (tenantId, b) =>
      sql`INSERT INTO tenant_branding (tenant_id, name, logo, accent_color, updated_at)
        VALUES (${tenantId}, ${b.name}, ${b.logo}, ${b.accent_color}, ${b.updated_at})
        ON CONFLICT (tenant_id) DO UPDATE SET name = EXCLUDED.name, logo = EXCLUDED.logo,
          accent_color = EXCLUDED.accent_color, updated_at = EXCLUDED.updated_at`.pipe(Effect.asVoid, failAs("BrandingStore.save"))
  })
})

// --- layers -----------------------------------------------------------------------------------

/** Webhook registrations and their deliveries. */
const webhookStores = Layer.effectContext(Effect.map(SqlWebhookStores.make, ({ deliveryStore, webhookStore }) =>
  Context.make(WebhookStore.WebhookStore, webhookStore).pipe(Context.add(DeliveryStore.DeliveryStore, deliveryStore))))

/** Every store port over the `SqlClient` in context (whose schema is migrated). */
export const layer: Layer.Layer<Stores, never, SqlClient.SqlClient> = Layer.mergeAll(
  webhookStores,
  Layer.effect(DirectoryStore.DirectoryStore, SqlDirectoryStore.make),
  Layer.effect(InvitationStore.InvitationStore, SqlInvitationStore.make),
  Layer.effect(SessionStore.SessionStore, SqlSessionStore.make),
  SqlWorkspaceRecords.layer,
  Layer.effect(AuditLog.AuditStore, SqlAuditStore.make),
  Layer.effect(GrantStore.GrantStore, SqlGrantStore.make),
  Layer.effect(ExportStore.ExportStore, SqlExportStore.make),
  Layer.effect(CommentStore.CommentStore, SqlCommentStore.make),
  Layer.effect(TenantStore.TenantStore, tenantStore),
  Layer.effect(TenantBranding.BrandingStore, brandingStore),
  Layer.effect(WorkspaceStore.WorkspaceStore, workspaceStore),
  Layer.effect(Idempotency.IdempotencyStore, idempotencyStore),
  Layer.effect(ServiceSecrets.ServiceSecrets, serviceSecrets),
  Layer.effect(Transactor.Transactor, transactor)
)

/** The stores over a client, migrating its schema when the layer is built. */
const withClient = <E>(
  client: Layer.Layer<SqlClient.SqlClient, E>
): Layer.Layer<Stores | SqlClient.SqlClient, E | SqlError | MigrationError> =>
  Layer.provideMerge(layer, Layer.provideMerge(Layer.effectDiscard(migrate), client))

/**
 * The pool's timers (idle connections, connect timeout) measure real time, so
 * they run on the live clock even under a TestClock, which would otherwise
 * replay every idle check when a test moves the clock years ahead.
 */
const liveClock = Layer.succeed(Clock.Clock, Clock.Clock.defaultValue())

/**
 * The stores on PostgreSQL at `url`, through a connection pool; migrates at
 * build. `options` tunes the pool (size, timeouts).
 */
export const layerPg = (
  url: Redacted.Redacted<string>,
  options: Omit<PgClient.PgPoolConfig, "url"> = {}
): Layer.Layer<Stores | SqlClient.SqlClient, SqlError | MigrationError> =>
  withClient(Layer.provide(PgClient.layer({ ...options, url }), liveClock))

/** The stores on embedded PGlite (in memory, or persisted in `dataDir`); migrates at build. */
export const layerPglite = (
  config: PgliteClient.PgliteClientConfig = {}
): Layer.Layer<Stores | SqlClient.SqlClient, SqlError | MigrationError> => withClient(PgliteClient.layer(config))
