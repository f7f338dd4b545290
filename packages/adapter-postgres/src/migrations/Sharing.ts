/**
 * Migrations of sharing (decisions 0014 and 0019): the audit log, grants
 * and comments.
 * Never edit one that has shipped: append a new one (decision 0007).
 *
 * @since 0.1.0
 */
import { ddl } from "./Ddl.ts"

/** The audit log: append-only (the service never updates or deletes a row), newest first per tenant. */
export const auditLog = ddl([
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
export const grants = ddl([
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

/** The address a grant to someone not yet a user was sent to, and its invitation's grants found by invitation. */
export const grantRecipients = ddl([
  `ALTER TABLE grants ADD COLUMN recipient_email text`,
  `CREATE INDEX grants_by_invitation ON grants (tenant_id, invitation_id) WHERE invitation_id IS NOT NULL`
])

/**
 * Threaded comments on reports (decision 0019), listed per report by
 * creation; they go with their report, and a reply with its parent.
 */
export const comments = ddl([
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

/** Each tenant's branding of its share pages (decision 0014): one row per tenant that set any, gone with it. */
export const tenantBranding = ddl([
  `CREATE TABLE tenant_branding (
    tenant_id uuid PRIMARY KEY REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    name text,
    logo text,
    accent_color text,
    updated_at timestamptz(3)
  )`
])

/**
 * A grant's label for people, and how often and when a link's or an
 * embed's page was last opened (decision 0014, "Labels and opens").
 */
export const grantOpens = ddl([
  `ALTER TABLE grants ADD COLUMN label text`,
  `ALTER TABLE grants ADD COLUMN last_opened_at timestamptz(3)`,
  `ALTER TABLE grants ADD COLUMN open_count integer NOT NULL DEFAULT 0`
])
