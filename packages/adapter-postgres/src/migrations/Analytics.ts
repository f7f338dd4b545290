/**
 * Migrations of the analytics records (decision 0013): datasets, reports,
 * alerts and dashboards.
 * Never edit one that has shipped: append a new one (decision 0007).
 *
 * @since 0.1.0
 */
import { ddl } from "./Ddl.ts"

/**
 * Datasets' records (decision 0013); their rows live in the analytics engine. The
 * workspace is a foreign key: deleting a workspace deletes its datasets.
 */
export const datasets = ddl([
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
export const reports = ddl([
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
export const alerts = ddl([
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
export const datasetSchedules = ddl([
  `ALTER TABLE datasets ADD COLUMN refresh_cron text`,
  `CREATE INDEX datasets_scheduled ON datasets (created_at) WHERE refresh_cron IS NOT NULL`
])

/** Dashboards: tiles pinned from reports' visuals, as jsonb. */
export const dashboards = ddl([
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

/**
 * Each load of an upload dataset into a table of its own (decision 0013): the
 * record names its current load. Existing rows keep null, which names the
 * table of the dataset alone (`dataset_<id>`), where their rows already are.
 */
export const datasetLoads = ddl([`ALTER TABLE datasets ADD COLUMN load_id uuid`])

/** Reports' filters (decision 0013): what exports and viewers give values by name; none for reports made before. */
export const reportFilters = ddl([`ALTER TABLE reports ADD COLUMN filters jsonb NOT NULL DEFAULT '[]'`])

/** Datasets' refresh log (`GET /v1/datasets/{id}/refreshes`): one row per refresh that ended, gone with its dataset. */
export const datasetRefreshes = ddl([
  `CREATE TABLE dataset_refreshes (
    refresh_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    dataset_id uuid NOT NULL REFERENCES datasets (dataset_id) ON DELETE CASCADE,
    trigger text NOT NULL,
    requested_by jsonb,
    status text NOT NULL,
    row_count bigint,
    error jsonb,
    started_at timestamptz(3) NOT NULL,
    finished_at timestamptz(3) NOT NULL,
    duration_ms integer NOT NULL
  )`,
  `CREATE INDEX dataset_refreshes_by_started_at ON dataset_refreshes (tenant_id, dataset_id, started_at DESC, refresh_id)`
])

/** Alerts' histories: each check, what it measured and whether it fired or resolved the alert (gone with the alert). */
export const alertChecks = ddl([
  `CREATE TABLE alert_checks (
    check_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    alert_id uuid NOT NULL REFERENCES alerts (alert_id) ON DELETE CASCADE,
    trigger text NOT NULL,
    measure text NOT NULL,
    condition text NOT NULL,
    threshold double precision NOT NULL,
    value double precision,
    state text NOT NULL,
    transition text,
    checked_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX alert_checks_by_checked_at ON alert_checks (tenant_id, alert_id, checked_at DESC, check_id)`
])
