/**
 * Every store port of `@analytics/core` over `SqlClient`, assembled: one
 * implementation for PostgreSQL and PGlite, each store in its own module
 * (`SqlTenantStore`, `SqlWorkspaceStore`, …). Every query names its tenant;
 * concurrency rests on single statements (`ON CONFLICT`), never on
 * read-then-write.
 *
 * @since 0.1.0
 */
import {
  AuditLog,
  CommentStore,
  DeliveryStore,
  DirectoryStore,
  ExportStore,
  GrantStore,
  Idempotency,
  InvitationStore,
  ServiceSecrets,
  SessionStore,
  type Stores,
  TenantBranding,
  TenantStore,
  Transactor,
  WebhookStore,
  WorkspaceStore
} from "@analytics/core"
import { PgClient } from "@effect/sql-pg"
import { Clock, Context, Effect, Layer, type Redacted } from "effect"
import type { MigrationError } from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { migrate } from "./Migrations.ts"
import * as PgliteClient from "./PgliteClient.ts"
import * as SqlAuditStore from "./SqlAuditStore.ts"
import * as SqlBrandingStore from "./SqlBrandingStore.ts"
import * as SqlCommentStore from "./SqlCommentStore.ts"
import * as SqlDirectoryStore from "./SqlDirectoryStore.ts"
import * as SqlExportStore from "./SqlExportStore.ts"
import * as SqlGrantStore from "./SqlGrantStore.ts"
import * as SqlIdempotencyStore from "./SqlIdempotencyStore.ts"
import * as SqlInvitationStore from "./SqlInvitationStore.ts"
import * as SqlServiceSecrets from "./SqlServiceSecrets.ts"
import * as SqlSessionStore from "./SqlSessionStore.ts"
import * as SqlTenantStore from "./SqlTenantStore.ts"
import * as SqlTransactor from "./SqlTransactor.ts"
import * as SqlWebhookStores from "./SqlWebhookStores.ts"
import * as SqlWorkspaceRecords from "./SqlWorkspaceRecords.ts"
import * as SqlWorkspaceStore from "./SqlWorkspaceStore.ts"

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
  Layer.effect(TenantStore.TenantStore, SqlTenantStore.make),
  Layer.effect(TenantBranding.BrandingStore, SqlBrandingStore.make),
  Layer.effect(WorkspaceStore.WorkspaceStore, SqlWorkspaceStore.make),
  Layer.effect(Idempotency.IdempotencyStore, SqlIdempotencyStore.make),
  Layer.effect(ServiceSecrets.ServiceSecrets, SqlServiceSecrets.make),
  Layer.effect(Transactor.Transactor, SqlTransactor.make)
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
