/**
 * Migrations of the directory (decision 0012): users, groups, memberships
 * and invitations.
 * Never edit one that has shipped: append a new one (decision 0007).
 *
 * @since 0.1.0
 */
import { ddl } from "./Ddl.ts"

/**
 * The directory (decision 0012): users (one e-mail per tenant, lower-cased by the
 * domain), groups (teams and executive roles) and memberships. Ids are unique across tenants, and every
 * query names its tenant.
 */
export const directory = ddl([
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
