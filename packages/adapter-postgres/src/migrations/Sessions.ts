/**
 * Migrations of console sessions (decision 0022).
 * Never edit one that has shipped: append a new one (decision 0007).
 *
 * @since 0.1.0
 */
import { ddl } from "./Ddl.ts"

/**
 * Console sessions and one-time sign-in links, each found by the SHA-256
 * hash of what the browser or the e-mail holds; and users by e-mail across
 * tenants, which a sign-in link request looks up.
 */
export const sessions = ddl([
  `CREATE TABLE sessions (
    session_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    user_id text NOT NULL,
    token_hash text NOT NULL UNIQUE,
    via text NOT NULL,
    api_token_hash text,
    created_at timestamptz(3) NOT NULL,
    last_seen_at timestamptz(3) NOT NULL,
    expires_at timestamptz(3) NOT NULL,
    ended_at timestamptz(3)
  )`,
  // Deprovisioning ends a user's open sessions.
  `CREATE INDEX sessions_open_by_user ON sessions (tenant_id, user_id) WHERE ended_at IS NULL`,
  `CREATE INDEX sessions_by_expiry ON sessions (expires_at)`,
  `CREATE TABLE sign_in_links (
    link_id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants (tenant_id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    token_hash text NOT NULL UNIQUE,
    created_at timestamptz(3) NOT NULL,
    expires_at timestamptz(3) NOT NULL,
    used_at timestamptz(3)
  )`,
  `CREATE INDEX sign_in_links_by_expiry ON sign_in_links (expires_at)`,
  `CREATE INDEX users_by_email ON users (email)`
])
