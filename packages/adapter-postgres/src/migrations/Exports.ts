/**
 * Migrations of exports (decision 0015): the jobs and their schedules.
 * Never edit one that has shipped: append a new one (decision 0007).
 *
 * @since 0.1.0
 */
import { ddl } from "./Ddl.ts"

/** Export jobs (decision 0015): the queue workers lease from, and each job's result. */
export const exportJobs = ddl([
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
export const exportSchedules = ddl([
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

/** Whose view a schedule's recipients who are no users get (decision 0015). */
export const scheduleRunAs = ddl([`ALTER TABLE export_schedules ADD COLUMN run_as uuid`])

/** A schedule's runs are read from its jobs, newest first (`GET /v1/export-schedules/{id}/runs`). */
export const jobsBySchedule = ddl([
  `CREATE INDEX export_jobs_by_schedule ON export_jobs (tenant_id, (delivery->>'schedule_id'), created_at DESC, job_id) WHERE delivery IS NOT NULL`
])
