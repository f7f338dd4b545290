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

/**
 * Rate limits (decision 0009): one row per quota key, decided by one function call
 * (one round trip) whose integer arithmetic is exactly `RateLimit.decide`'s.
 * A bucket keeps (a, b) = (level, updated_at); a window keeps (a, b, c) =
 * (window number, current count, previous count). Times are epoch
 * milliseconds as the deciding process's clock gave them. `forget_at` is
 * when the state has decided like none (`RateLimit.expiresAt`) for
 * `RateLimit.retainAfterExpiryMillis` (5 min, for clocks running behind):
 * rows past it may be deleted at any time. Concurrency slots are leases with an expiry.
 *
 * Every key is locked with a transaction-level advisory lock (class 7431,
 * taken in key order, so two deciders never deadlock) before it is read.
 */
const rateLimits = ddl([
  `CREATE TABLE rate_limit_states (
    key text PRIMARY KEY,
    a bigint NOT NULL,
    b bigint NOT NULL,
    c bigint NOT NULL,
    forget_at bigint NOT NULL
  )`,
  `CREATE INDEX rate_limit_states_by_forget_at ON rate_limit_states (forget_at)`,
  `CREATE TABLE rate_limit_slots (
    key text NOT NULL,
    lease text NOT NULL,
    expires_at bigint NOT NULL,
    PRIMARY KEY (key, lease)
  )`,
  `CREATE FUNCTION analytics_rate_limit_lock(keys text[]) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    k text;
  BEGIN
    FOR k IN SELECT DISTINCT u FROM unnest(keys) AS u ORDER BY u LOOP
      PERFORM pg_advisory_xact_lock(7431, hashtext(k));
    END LOOP;
  END $$`,
  // Decides one request against quotas i = 1..n (bucket: sizes = capacity, periods = fill ms;
  // window: sizes = limit, periods = window ms); keeps the new states only if all pass.
  // Returns the states as they were, for the caller to compute the decision's details.
  `CREATE FUNCTION analytics_rate_limit_consume(
    keys text[], buckets boolean[], sizes bigint[], periods bigint[], now bigint,
    OUT allowed boolean, OUT prior_a bigint[], OUT prior_b bigint[], OUT prior_c bigint[]
  ) LANGUAGE plpgsql AS $$
  DECLARE
    n int := cardinality(keys);
    r rate_limit_states;
    found_row boolean;
    next_a bigint[] := '{}'; next_b bigint[] := '{}'; next_c bigint[] := '{}'; forget bigint[] := '{}';
    full_level bigint; lvl bigint; at bigint; w bigint; now_window bigint; win bigint; elapsed bigint; cur bigint; prev bigint;
  BEGIN
    PERFORM analytics_rate_limit_lock(keys);
    allowed := true; prior_a := '{}'; prior_b := '{}'; prior_c := '{}';
    FOR i IN 1..n LOOP
      SELECT * INTO r FROM rate_limit_states WHERE key = keys[i];
      found_row := FOUND;
      prior_a[i] := r.a; prior_b[i] := r.b; prior_c[i] := r.c;
      IF buckets[i] THEN
        full_level := sizes[i] * periods[i];
        IF found_row THEN
          at := greatest(now, r.b);
          lvl := least(full_level, r.a + (at - r.b) * sizes[i]);
        ELSE
          at := now; lvl := full_level;
        END IF;
        IF lvl < periods[i] THEN allowed := false; END IF;
        next_a[i] := lvl - periods[i]; next_b[i] := at; next_c[i] := 0;
        forget[i] := at + (full_level - next_a[i] + sizes[i] - 1) / sizes[i] + 300000;
      ELSE
        w := periods[i];
        now_window := floor(now::numeric / w)::bigint;
        IF found_row AND r.a >= now_window THEN
          win := r.a; elapsed := greatest(0, now - win * w); cur := r.b; prev := r.c;
        ELSE
          win := now_window; elapsed := now - win * w; cur := 0;
          prev := CASE WHEN found_row AND r.a = now_window - 1 THEN r.b ELSE 0 END;
        END IF;
        IF prev * (w - elapsed) + cur * w + w > sizes[i] * w THEN allowed := false; END IF;
        next_a[i] := win; next_b[i] := cur + 1; next_c[i] := prev;
        forget[i] := (win + 2) * w + 300000;
      END IF;
    END LOOP;
    IF allowed THEN
      INSERT INTO rate_limit_states (key, a, b, c, forget_at)
        SELECT * FROM unnest(keys, next_a, next_b, next_c, forget)
      ON CONFLICT (key) DO UPDATE
        SET a = excluded.a, b = excluded.b, c = excluded.c, forget_at = excluded.forget_at;
    END IF;
    -- Now and then, forget a few states that decide like none (keys per client IP would pile up).
    IF random() < 0.01 THEN
      DELETE FROM rate_limit_states WHERE key IN (
        SELECT key FROM rate_limit_states WHERE forget_at <= now ORDER BY forget_at LIMIT 100
      ) AND forget_at <= now;
    END IF;
  END $$`,
  // Gives back a request counted at counted_at (RateLimit.refundOne).
  `CREATE FUNCTION analytics_rate_limit_refund(
    keys text[], buckets boolean[], sizes bigint[], periods bigint[], counted_at bigint, now bigint
  ) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    r rate_limit_states;
    full_level bigint; lvl bigint; at bigint; counted_window bigint;
  BEGIN
    PERFORM analytics_rate_limit_lock(keys);
    FOR i IN 1..cardinality(keys) LOOP
      SELECT * INTO r FROM rate_limit_states WHERE key = keys[i];
      CONTINUE WHEN NOT FOUND;
      IF buckets[i] THEN
        full_level := sizes[i] * periods[i];
        at := greatest(now, r.b);
        lvl := least(full_level, least(full_level, r.a + (at - r.b) * sizes[i]) + periods[i]);
        UPDATE rate_limit_states
          SET a = lvl, b = at, forget_at = at + (full_level - lvl + sizes[i] - 1) / sizes[i] + 300000
          WHERE key = keys[i];
      ELSE
        counted_window := floor(counted_at::numeric / periods[i])::bigint;
        UPDATE rate_limit_states
          SET b = CASE WHEN a = counted_window THEN greatest(0, b - 1) ELSE b END,
              c = CASE WHEN a = counted_window + 1 THEN greatest(0, c - 1) ELSE c END
          WHERE key = keys[i];
      END IF;
    END LOOP;
  END $$`,
  // Takes a slot unless capacity unexpired leases hold them all (the lease itself renews).
  `CREATE FUNCTION analytics_rate_limit_acquire_slot(
    slot_key text, slot_lease text, capacity int, now bigint, lease_expires_at bigint
  ) RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM analytics_rate_limit_lock(ARRAY[slot_key]);
    DELETE FROM rate_limit_slots WHERE key = slot_key AND expires_at <= now;
    IF NOT EXISTS (SELECT 1 FROM rate_limit_slots WHERE key = slot_key AND lease = slot_lease)
      AND (SELECT count(*) FROM rate_limit_slots WHERE key = slot_key) >= capacity THEN
      RETURN false;
    END IF;
    INSERT INTO rate_limit_slots (key, lease, expires_at) VALUES (slot_key, slot_lease, lease_expires_at)
      ON CONFLICT (key, lease) DO UPDATE SET expires_at = excluded.expires_at;
    RETURN true;
  END $$`
])

/** A Custom plan's negotiated limits (decision 0009), as the API writes them; NULL on the other plans. */
const tenantLimits = ddl([`ALTER TABLE tenants ADD COLUMN limits jsonb`])

/**
 * Webhooks and their deliveries (decision 0010). The deliveries table is
 * both the transactional outbox (a publish inserts in the caller's
 * transaction) and the lease-based queue workers claim from with
 * `FOR UPDATE SKIP LOCKED` (decision 0011). Finished deliveries have no
 * `next_attempt_at`, so the queue's index holds only the unfinished.
 * Attempts are a jsonb array on their delivery: a handful per delivery,
 * always read with it.
 */
const webhooks = ddl([
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

/**
 * The directory (decision 0012): users (one e-mail per tenant, lower-cased by the
 * domain), groups (teams and executive roles) and memberships. Ids are unique across tenants, and every
 * query names its tenant.
 */
const directory = ddl([
  `CREATE TABLE users (
    user_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    email text NOT NULL,
    name text NOT NULL,
    status text NOT NULL,
    roles text[] NOT NULL,
    external_id text,
    user_name text,
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL,
    UNIQUE (tenant_id, email)
  )`,
  `CREATE INDEX users_by_created_at ON users (tenant_id, created_at DESC, user_id)`,
  // SCIM looks users up by the identity provider's user name and id.
  `CREATE INDEX users_by_user_name ON users (tenant_id, lower(user_name)) WHERE user_name IS NOT NULL`,
  `CREATE INDEX users_by_external_id ON users (tenant_id, external_id) WHERE external_id IS NOT NULL`,
  // Teams and executive roles: named sets of users that grants are made to.
  `CREATE TABLE groups (
    group_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    kind text NOT NULL,
    name text NOT NULL,
    source text NOT NULL,
    external_id text,
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX groups_by_created_at ON groups (tenant_id, kind, created_at DESC, group_id)`,
  `CREATE INDEX groups_by_external_id ON groups (tenant_id, external_id) WHERE external_id IS NOT NULL`,
  `CREATE TABLE group_members (
    group_id uuid NOT NULL REFERENCES groups (group_id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    PRIMARY KEY (group_id, user_id)
  )`,
  // A user's groups, read when access is decided.
  `CREATE INDEX group_members_by_user ON group_members (user_id)`,
  // Invitations: the token only as its SHA-256 hash, found by it when accepted.
  `CREATE TABLE invitations (
    invitation_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    email text NOT NULL,
    name text,
    status text NOT NULL,
    token_hash text NOT NULL UNIQUE,
    invited_by text NOT NULL,
    expires_at timestamptz(3) NOT NULL,
    user_id uuid REFERENCES users (user_id) ON DELETE SET NULL,
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX invitations_by_created_at ON invitations (tenant_id, created_at DESC, invitation_id)`,
  `CREATE INDEX invitations_pending ON invitations (tenant_id, email) WHERE status = 'pending'`
])

/**
 * Datasets' records (decision 0013); their rows live in the analytics engine. The
 * workspace is a foreign key: deleting a workspace deletes its datasets.
 */
const datasets = ddl([
  `CREATE TABLE datasets (
    dataset_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    workspace_id uuid NOT NULL REFERENCES workspaces (workspace_id) ON DELETE CASCADE,
    name text NOT NULL,
    description text,
    source jsonb NOT NULL,
    model jsonb NOT NULL,
    columns jsonb NOT NULL,
    row_count bigint,
    refreshed_at timestamptz(3),
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX datasets_by_created_at ON datasets (tenant_id, workspace_id, created_at DESC, dataset_id)`,
  `CREATE INDEX datasets_workspace_id ON datasets (workspace_id)`
])

/** Reports (decision 0013): pages and settings as jsonb; deleting a workspace deletes its reports. */
const reports = ddl([
  `CREATE TABLE reports (
    report_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    workspace_id uuid NOT NULL REFERENCES workspaces (workspace_id) ON DELETE CASCADE,
    name text NOT NULL,
    description text,
    pages jsonb NOT NULL,
    settings jsonb NOT NULL,
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX reports_by_created_at ON reports (tenant_id, workspace_id, created_at DESC, report_id)`,
  `CREATE INDEX reports_workspace_id ON reports (workspace_id)`
])

/** Alerts (decision 0013): rules on a dataset's measure, with their last state. */
const alerts = ddl([
  `CREATE TABLE alerts (
    alert_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    workspace_id uuid NOT NULL REFERENCES workspaces (workspace_id) ON DELETE CASCADE,
    dataset_id uuid NOT NULL REFERENCES datasets (dataset_id) ON DELETE CASCADE,
    name text NOT NULL,
    measure text NOT NULL,
    filters jsonb NOT NULL,
    condition text NOT NULL,
    threshold double precision NOT NULL,
    schedule jsonb NOT NULL,
    state text NOT NULL,
    last_value double precision,
    last_checked_at timestamptz(3),
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX alerts_by_created_at ON alerts (tenant_id, workspace_id, created_at DESC, alert_id)`,
  `CREATE INDEX alerts_by_dataset ON alerts (dataset_id)`,
  `CREATE INDEX alerts_scheduled ON alerts (created_at) WHERE schedule ? 'cron'`
])

/** PostgreSQL datasets refreshed on a schedule. */
const datasetSchedules = ddl([
  `ALTER TABLE datasets ADD COLUMN refresh_cron text`,
  `CREATE INDEX datasets_scheduled ON datasets (created_at) WHERE refresh_cron IS NOT NULL`
])

/** Dashboards: tiles pinned from reports' visuals, as jsonb. */
const dashboards = ddl([
  `CREATE TABLE dashboards (
    dashboard_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    workspace_id uuid NOT NULL REFERENCES workspaces (workspace_id) ON DELETE CASCADE,
    name text NOT NULL,
    tiles jsonb NOT NULL,
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX dashboards_by_created_at ON dashboards (tenant_id, workspace_id, created_at DESC, dashboard_id)`,
  `CREATE INDEX dashboards_workspace_id ON dashboards (workspace_id)`
])

/** The audit log: append-only (the service never updates or deletes a row), newest first per tenant. */
const auditLog = ddl([
  `CREATE TABLE audit_log (
    entry_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    workspace_id uuid,
    action text NOT NULL,
    actor_type text NOT NULL,
    actor_id text NOT NULL,
    target_type text NOT NULL,
    target_id text NOT NULL,
    detail jsonb NOT NULL,
    created_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX audit_log_by_created_at ON audit_log (tenant_id, created_at DESC, entry_id)`,
  `CREATE INDEX audit_log_by_target ON audit_log (tenant_id, target_type, target_id)`
])

/**
 * Sharing grants (decision 0014). Revoked and expired grants stay (decision 0014:
 * tombstoned for audit); a link's URL token is unique across tenants.
 */
const grants = ddl([
  `CREATE TABLE grants (
    grant_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    workspace_id uuid NOT NULL,
    subject_type text NOT NULL,
    subject_id text NOT NULL,
    principal_type text NOT NULL,
    principal_id text,
    actions text[] NOT NULL,
    watermark boolean NOT NULL,
    expires_at timestamptz(3),
    revoked_at timestamptz(3),
    link_slug text UNIQUE,
    password_hash text,
    paused boolean NOT NULL,
    invitation_id uuid,
    created_by_type text NOT NULL,
    created_by_id text NOT NULL,
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX grants_by_created_at ON grants (tenant_id, created_at DESC, grant_id)`,
  `CREATE INDEX grants_by_subject ON grants (tenant_id, subject_type, subject_id)`
])

const grantRecipients = ddl([
  `ALTER TABLE grants ADD COLUMN recipient_email text`,
  `CREATE INDEX grants_by_invitation ON grants (tenant_id, invitation_id) WHERE invitation_id IS NOT NULL`
])

const exportJobs = ddl([
  `CREATE TABLE export_jobs (
    job_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    workspace_id uuid NOT NULL,
    report_id uuid NOT NULL,
    request jsonb NOT NULL,
    requested_by_type text NOT NULL,
    requested_by_id text NOT NULL,
    security jsonb NOT NULL,
    watermark text,
    status text NOT NULL,
    percent_complete integer NOT NULL,
    attempts integer NOT NULL,
    failure jsonb,
    result jsonb,
    run_after timestamptz(3) NOT NULL,
    lease uuid,
    lease_until timestamptz(3),
    created_at timestamptz(3) NOT NULL,
    started_at timestamptz(3),
    finished_at timestamptz(3),
    updated_at timestamptz(3) NOT NULL
  )`,
  // The queue: only unfinished jobs, oldest first.
  `CREATE INDEX export_jobs_unfinished ON export_jobs (created_at, job_id) WHERE status IN ('queued', 'running')`,
  `CREATE INDEX export_jobs_by_tenant ON export_jobs (tenant_id, created_at DESC)`
])

/**
 * Scheduled exports: the schedules (the scheduler claims those due by
 * `next_run_at`), and the recipient a scheduled job's file is mailed to.
 */
const exportSchedules = ddl([
  `CREATE TABLE export_schedules (
    schedule_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    workspace_id uuid NOT NULL REFERENCES workspaces (workspace_id) ON DELETE CASCADE,
    report_id uuid NOT NULL,
    name text NOT NULL,
    cron text NOT NULL,
    timezone text NOT NULL,
    request jsonb NOT NULL,
    recipients jsonb NOT NULL,
    enabled boolean NOT NULL,
    created_by jsonb NOT NULL,
    next_run_at timestamptz(3),
    last_run jsonb,
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX export_schedules_by_created_at ON export_schedules (tenant_id, workspace_id, created_at DESC, schedule_id)`,
  `CREATE INDEX export_schedules_due ON export_schedules (next_run_at) WHERE enabled`,
  `ALTER TABLE export_jobs ADD COLUMN delivery jsonb`
])

/**
 * Each load of an upload dataset into a table of its own (decision 0013): the
 * record names its current load. Existing rows keep null, which names the
 * table of the dataset alone (`dataset_<id>`), where their rows already are.
 */
const datasetLoads = ddl([`ALTER TABLE datasets ADD COLUMN load_id uuid`])

/**
 * Exact sliding logs (decision 0009: password attempts, 5 failures in any
 * 5 minutes). A log's row keeps a = b = c = 0 and `log`, the ascending
 * instants (epoch ms) still inside the window when written; `forget_at` is
 * the last instant plus the window plus 5 minutes.
 *
 * The consume and refund functions gain overloads that take each quota's
 * kind as text (`bucket`, `window`, `log`) instead of a boolean; the
 * boolean ones stay, unchanged, for hosts not yet upgraded during a rolling
 * deploy (they never see a log: its keys are its own).
 */
const rateLimitLogs = ddl([
  `ALTER TABLE rate_limit_states ADD COLUMN log bigint[]`,
  // Decides one request against quotas i = 1..n (bucket: sizes = capacity, periods = fill ms;
  // window and log: sizes = limit, periods = window ms); keeps the new states only if all pass.
  // Returns the states as they were (a log as its instants joined by commas), for the caller
  // to compute the decision's details.
  `CREATE FUNCTION analytics_rate_limit_consume(
    keys text[], kinds text[], sizes bigint[], periods bigint[], now bigint,
    OUT allowed boolean, OUT prior_a bigint[], OUT prior_b bigint[], OUT prior_c bigint[], OUT prior_log text[]
  ) LANGUAGE plpgsql AS $$
  DECLARE
    n int := cardinality(keys);
    r rate_limit_states;
    found_row boolean;
    next_a bigint[] := '{}'; next_b bigint[] := '{}'; next_c bigint[] := '{}'; forget bigint[] := '{}';
    next_log text[] := '{}';
    live bigint[];
    full_level bigint; lvl bigint; at bigint; w bigint; now_window bigint; win bigint; elapsed bigint; cur bigint; prev bigint;
  BEGIN
    PERFORM analytics_rate_limit_lock(keys);
    allowed := true; prior_a := '{}'; prior_b := '{}'; prior_c := '{}'; prior_log := '{}';
    FOR i IN 1..n LOOP
      SELECT * INTO r FROM rate_limit_states WHERE key = keys[i];
      found_row := FOUND;
      prior_log[i] := NULL; next_log[i] := NULL;
      IF kinds[i] = 'log' THEN
        -- A row of another shape under this key reads as no state (the next write replaces it).
        IF found_row AND r.log IS NOT NULL THEN
          prior_a[i] := 0; prior_b[i] := 0; prior_c[i] := 0;
          prior_log[i] := array_to_string(r.log, ',');
          live := ARRAY(SELECT t FROM unnest(r.log) AS t WHERE t > now - periods[i] ORDER BY t);
        ELSE
          prior_a[i] := NULL; prior_b[i] := NULL; prior_c[i] := NULL;
          live := '{}';
        END IF;
        IF cardinality(live) >= sizes[i] THEN allowed := false; END IF;
        live := ARRAY(SELECT t FROM unnest(live || now) AS t ORDER BY t);
        next_a[i] := 0; next_b[i] := 0; next_c[i] := 0;
        next_log[i] := array_to_string(live, ',');
        forget[i] := live[cardinality(live)] + periods[i] + 300000;
      ELSIF kinds[i] = 'bucket' THEN
        prior_a[i] := r.a; prior_b[i] := r.b; prior_c[i] := r.c;
        full_level := sizes[i] * periods[i];
        IF found_row THEN
          at := greatest(now, r.b);
          lvl := least(full_level, r.a + (at - r.b) * sizes[i]);
        ELSE
          at := now; lvl := full_level;
        END IF;
        IF lvl < periods[i] THEN allowed := false; END IF;
        next_a[i] := lvl - periods[i]; next_b[i] := at; next_c[i] := 0;
        forget[i] := at + (full_level - next_a[i] + sizes[i] - 1) / sizes[i] + 300000;
      ELSE
        prior_a[i] := r.a; prior_b[i] := r.b; prior_c[i] := r.c;
        w := periods[i];
        now_window := floor(now::numeric / w)::bigint;
        IF found_row AND r.a >= now_window THEN
          win := r.a; elapsed := greatest(0, now - win * w); cur := r.b; prev := r.c;
        ELSE
          win := now_window; elapsed := now - win * w; cur := 0;
          prev := CASE WHEN found_row AND r.a = now_window - 1 THEN r.b ELSE 0 END;
        END IF;
        IF prev * (w - elapsed) + cur * w + w > sizes[i] * w THEN allowed := false; END IF;
        next_a[i] := win; next_b[i] := cur + 1; next_c[i] := prev;
        forget[i] := (win + 2) * w + 300000;
      END IF;
    END LOOP;
    IF allowed THEN
      INSERT INTO rate_limit_states (key, a, b, c, forget_at, log)
        SELECT u.k, u.a, u.b, u.c, u.f, string_to_array(u.l, ',')::bigint[]
        FROM unnest(keys, next_a, next_b, next_c, forget, next_log) AS u(k, a, b, c, f, l)
      ON CONFLICT (key) DO UPDATE
        SET a = excluded.a, b = excluded.b, c = excluded.c, forget_at = excluded.forget_at, log = excluded.log;
    END IF;
    -- Now and then, forget a few states that decide like none (keys per client IP would pile up).
    IF random() < 0.01 THEN
      DELETE FROM rate_limit_states WHERE key IN (
        SELECT key FROM rate_limit_states WHERE forget_at <= now ORDER BY forget_at LIMIT 100
      ) AND forget_at <= now;
    END IF;
  END $$`,
  // Gives back a request counted at counted_at (RateLimit.refundOne): a log drops one instant equal to it.
  `CREATE FUNCTION analytics_rate_limit_refund(
    keys text[], kinds text[], sizes bigint[], periods bigint[], counted_at bigint, now bigint
  ) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    r rate_limit_states;
    full_level bigint; lvl bigint; at bigint; counted_window bigint; pos int;
  BEGIN
    PERFORM analytics_rate_limit_lock(keys);
    FOR i IN 1..cardinality(keys) LOOP
      SELECT * INTO r FROM rate_limit_states WHERE key = keys[i];
      CONTINUE WHEN NOT FOUND;
      IF kinds[i] = 'log' THEN
        CONTINUE WHEN r.log IS NULL;
        pos := array_position(r.log, counted_at);
        CONTINUE WHEN pos IS NULL;
        UPDATE rate_limit_states SET log = r.log[:pos - 1] || r.log[pos + 1:] WHERE key = keys[i];
      ELSIF kinds[i] = 'bucket' THEN
        full_level := sizes[i] * periods[i];
        at := greatest(now, r.b);
        lvl := least(full_level, least(full_level, r.a + (at - r.b) * sizes[i]) + periods[i]);
        UPDATE rate_limit_states
          SET a = lvl, b = at, forget_at = at + (full_level - lvl + sizes[i] - 1) / sizes[i] + 300000
          WHERE key = keys[i];
      ELSE
        counted_window := floor(counted_at::numeric / periods[i])::bigint;
        UPDATE rate_limit_states
          SET b = CASE WHEN a = counted_window THEN greatest(0, b - 1) ELSE b END,
              c = CASE WHEN a = counted_window + 1 THEN greatest(0, c - 1) ELSE c END
          WHERE key = keys[i];
      END IF;
    END LOOP;
  END $$`
])

/** Reports' filters (decision 0013): what exports and viewers give values by name; none for reports made before. */
const reportFilters = ddl([`ALTER TABLE reports ADD COLUMN filters jsonb NOT NULL DEFAULT '[]'`])

/** Whose view a schedule's recipients who are no users get (decision 0015). */
const scheduleRunAs = ddl([`ALTER TABLE export_schedules ADD COLUMN run_as uuid`])

/**
 * Threaded comments on reports (decision 0019), listed per report by
 * creation; they go with their report, and a reply with its parent.
 */
const comments = ddl([
  `CREATE TABLE comments (
    comment_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    workspace_id uuid NOT NULL,
    report_id uuid NOT NULL REFERENCES reports (report_id) ON DELETE CASCADE,
    visual_id text,
    parent_id uuid REFERENCES comments (comment_id) ON DELETE CASCADE,
    author_type text NOT NULL,
    author_id text NOT NULL,
    text text NOT NULL,
    deleted boolean NOT NULL,
    edited_at timestamptz(3),
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX comments_by_report ON comments (tenant_id, report_id, created_at, comment_id)`,
  `CREATE INDEX comments_parent_id ON comments (parent_id) WHERE parent_id IS NOT NULL`
])

/** Every migration, keyed `<id>_<name>`. */
export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "1_initial": initial,
  "2_idempotency_purge_index": idempotencyPurgeIndex,
  "3_rate_limits": rateLimits,
  "4_tenant_limits": tenantLimits,
  "5_webhooks": webhooks,
  "6_directory": directory,
  "7_datasets": datasets,
  "8_reports": reports,
  "9_alerts": alerts,
  "10_dataset_schedules": datasetSchedules,
  "11_dashboards": dashboards,
  "12_audit_log": auditLog,
  "13_grants": grants,
  "14_grant_recipients": grantRecipients,
  "15_export_jobs": exportJobs,
  "16_export_schedules": exportSchedules,
  "17_dataset_loads": datasetLoads,
  "18_rate_limit_logs": rateLimitLogs,
  "19_report_filters": reportFilters,
  "20_schedule_run_as": scheduleRunAs,
  "21_comments": comments
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
