/**
 * Migrations of the platform's own tables: tenants, their tokens and plans' limits,
 * workspaces, and idempotency records.
 * Never edit one that has shipped: append a new one (decision 0007).
 *
 * @since 0.1.0
 */
import { ddl } from "./Ddl.ts"

/**
 * Times are `timestamptz(3)`: the domain's clock has millisecond precision,
 * and keyset comparisons must see exactly the values the cursors carry.
 */
export const initial = ddl([
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
export const idempotencyPurgeIndex = ddl([
  `CREATE INDEX idempotency_keys_by_created_at ON idempotency_keys (created_at)`
])

/** A Custom plan's negotiated limits (decision 0009), as the API writes them; NULL on the other plans. */
export const tenantLimits = ddl([`ALTER TABLE tenants ADD COLUMN limits jsonb`])
