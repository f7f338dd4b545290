/**
 * The database schema, as versioned migrations kept in code (no files to ship
 * or find at run time), shared by PostgreSQL and PGlite.
 *
 * Append new migrations with the next id; never edit one that has shipped.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/** The table where applied migration ids are recorded. */
export const migrationsTable = "analytics_migrations"

/** Runs DDL statements one by one: the extended protocol takes one statement per query. */
const ddl = (statements: ReadonlyArray<string>): Effect.Effect<void, SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(statements, (statement) => sql.unsafe(statement), { discard: true }))

/**
 * Times are `timestamptz(3)`: the domain's clock has millisecond precision,
 * and keyset comparisons must see exactly the values the cursors carry.
 */
const initial = ddl([
  `CREATE TABLE tenants (
    tenant_id uuid PRIMARY KEY,
    name text NOT NULL,
    plan text NOT NULL,
    created_at timestamptz(3) NOT NULL
  )`,
  `CREATE TABLE api_tokens (
    token_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    token_hash text NOT NULL UNIQUE,
    user_id text NOT NULL,
    email text,
    roles text[] NOT NULL,
    created_at timestamptz(3) NOT NULL
  )`,
  // Foreign keys are not indexed by PostgreSQL; this one serves the cascade.
  `CREATE INDEX api_tokens_tenant_id ON api_tokens (tenant_id)`,
  `CREATE TABLE workspaces (
    workspace_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    name text NOT NULL,
    description text,
    created_at timestamptz(3) NOT NULL
  )`,
  // Keyset listing, one index per sort field, in the order the list reads.
  `CREATE INDEX workspaces_by_created_at ON workspaces (tenant_id, created_at DESC, workspace_id)`,
  `CREATE INDEX workspaces_by_name ON workspaces (tenant_id, name COLLATE "C", workspace_id)`,
  `CREATE TABLE idempotency_keys (
    owner text NOT NULL,
    scope text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    created_at timestamptz(3) NOT NULL,
    response_status integer,
    response_headers jsonb,
    response_body text,
    PRIMARY KEY (owner, scope, key),
    CONSTRAINT idempotency_keys_response_whole CHECK (
      (response_status IS NULL) = (response_headers IS NULL) AND (response_status IS NULL) = (response_body IS NULL)
    )
  )`,
  `CREATE TABLE service_secrets (
    name text PRIMARY KEY,
    value text NOT NULL,
    created_at timestamptz(3) NOT NULL DEFAULT now()
  )`
])

/** Purging expired idempotency records scans by age. */
const idempotencyPurgeIndex = ddl([
  `CREATE INDEX idempotency_keys_by_created_at ON idempotency_keys (created_at)`
])

/** Every migration, keyed `<id>_<name>`. */
export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "1_initial": initial,
  "2_idempotency_purge_index": idempotencyPurgeIndex
}

/** An arbitrary constant: the advisory lock that serialises `migrate` across processes. */
const migrationLockKey = 7_431_205_311

const runMigrator = Migrator.make({})({
  loader: Migrator.fromRecord(migrations),
  table: migrationsTable
})

/**
 * Applies pending migrations; returns those it applied (none when up to date).
 *
 * The whole run is one transaction holding a transaction-level advisory lock,
 * so processes that migrate at once run one after the other, and the later
 * ones find nothing to do. The Migrator alone also survives that race (its
 * `LOCK TABLE`, and a re-check when creating its table fails), but the lock
 * makes it independent of those internals and creates the migrations table
 * in the same transaction as the schema.
 */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError,
  SqlClient.SqlClient
> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(
    Effect.andThen(sql`SELECT pg_advisory_xact_lock(${migrationLockKey})`, runMigrator)
  )
})
