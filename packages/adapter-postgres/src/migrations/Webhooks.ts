/**
 * Migrations of webhooks and their deliveries (decisions 0010 and 0011).
 * Never edit one that has shipped: append a new one (decision 0007).
 *
 * @since 0.1.0
 */
import { ddl } from "./Ddl.ts"

/**
 * Webhooks and their deliveries (decision 0010). The deliveries table is
 * both the transactional outbox (a publish inserts in the caller's
 * transaction) and the lease-based queue workers claim from with
 * `FOR UPDATE SKIP LOCKED` (decision 0011). Finished deliveries have no
 * `next_attempt_at`, so the queue's index holds only the unfinished.
 * Attempts are a jsonb array on their delivery: a handful per delivery,
 * always read with it.
 */
export const webhooks = ddl([
  `CREATE TABLE webhooks (
    webhook_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    workspace_id uuid REFERENCES workspaces (workspace_id) ON DELETE CASCADE,
    url text NOT NULL,
    events text[] NOT NULL,
    description text,
    enabled boolean NOT NULL,
    disabled_reason text,
    owner_user_id text NOT NULL,
    owner_email text,
    secret text NOT NULL,
    previous_secret text,
    previous_secret_until bigint,
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX webhooks_by_created_at ON webhooks (tenant_id, created_at DESC, webhook_id)`,
  `CREATE INDEX webhooks_workspace_id ON webhooks (workspace_id) WHERE workspace_id IS NOT NULL`,
  `CREATE TABLE webhook_deliveries (
    delivery_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL,
    webhook_id uuid NOT NULL REFERENCES webhooks (webhook_id) ON DELETE CASCADE,
    event_type text NOT NULL,
    body text NOT NULL,
    status text NOT NULL,
    attempts jsonb NOT NULL DEFAULT '[]',
    failures integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz(3),
    lease uuid,
    lease_until timestamptz(3),
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at DESC, delivery_id)`,
  `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL`,
  // Purging the log's finished deliveries by age.
  `CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (updated_at) WHERE next_attempt_at IS NULL`,
  // A time-ordered id (UUIDv7) for the given epoch milliseconds: publishing makes one per hearing webhook in SQL.
  `CREATE FUNCTION analytics_uuidv7(millis bigint) RETURNS uuid LANGUAGE sql VOLATILE AS $$
    SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
      PLACING substring(int8send(millis) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
  $$`
])
