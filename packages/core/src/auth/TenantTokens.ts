/**
 * The bearer tokens a tenant issues beside the admin token it was
 * provisioned with: tokens for its identity provider (SCIM, `/scim/v2`
 * only) and users' personal tokens, which act as their user as the
 * directory has them at each request (roles, deprovisioning).
 *
 * Tokens are shown once and stored as hashes (`ApiToken`); a token's role
 * says which kind it is.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import type { EventPublisher } from "../webhooks/EventPublisher.ts"
import type { Transactor } from "../platform/Transactor.ts"
import * as ApiToken from "../tenancy/ApiToken.ts"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import { DirectoryStore } from "../directory/DirectoryStore.ts"
import { NotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { applyInMemory, type InvalidSort, type Keyset, type NewestFirstRequest, type Page, paginateNewestFirst } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { type ApiTokenRecord, TenantStore } from "../tenancy/TenantStore.ts"
import type { User, UserId } from "../directory/User.ts"

/** The role of the tokens identity providers provision with: `/scim/v2` only, nothing of `/v1`. */
export const scimRole = "scim"

/** The role of a user's personal token: the principal is the directory user, read at each request. */
export const userRole = "user"

/** A token as issued: the token itself, this once. */
export interface Issued {
  readonly token: string
  readonly tokenId: string
  readonly createdAt: Date
}

/** A token as listed: never the token itself. */
export interface Listed {
  readonly tokenId: string
  readonly createdAt: Date
}

/** The user is deprovisioned: no token is issued for them. */
export class UserDeprovisioned extends TaggedFailure("UserDeprovisioned")<{
  readonly userId: string
}> {
  readonly code = "directory/user-deprovisioned" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `User ${this.userId} is deprovisioned; reactivate them first`
  }
}

const issue = (tenantId: TenantId, holder: Pick<ApiTokenRecord, "userId" | "email" | "roles">) =>
  Effect.gen(function*() {
    const token = yield* ApiToken.generate
    const createdAt = new Date(yield* Clock.currentTimeMillis)
    const tokenId = yield* uuidv7
    yield* (yield* TenantStore).insertToken({ tokenId, tenantId, tokenHash: yield* ApiToken.hash(token), createdAt, ...holder })
    return { token, tokenId, createdAt } satisfies Issued
  })

/** What recording an admin's change of tokens writes besides the change. */
export type Recording = AuditLog.AuditStore | EventPublisher | Transactor

/** The audit entry of a token issued or revoked (`token.issued`, `token.revoked`, `scim_token.created`, `scim_token.revoked`). */
const tokenEntry = (action: string, tokenId: string, by: AuditLog.Actor, detail: Record<string, unknown>): AuditLog.Recorded => ({
  workspace_id: null,
  action,
  actor: by,
  target: { type: action.startsWith("scim_token.") ? "scim_token" : "api_token", id: tokenId },
  detail: { token_id: tokenId, ...detail }
})

/** A new token for the tenant's identity provider, audited (`scim_token.created`). */
export const issueScim = (tenantId: TenantId, by: AuditLog.Actor): Effect.Effect<Issued, StoreError, TenantStore | Recording> =>
  AuditLog.recorded(
    tenantId,
    issue(tenantId, { userId: `${scimRole}:${tenantId}`, email: null, roles: [scimRole] }),
    (issued) => tokenEntry("scim_token.created", issued.tokenId, by, {})
  )

/** A new personal token of an active user (in the caller's transaction, if any). */
export const issueForUser = (user: User): Effect.Effect<Issued, UserDeprovisioned | StoreError, TenantStore> =>
  user.status === "active"
    ? issue(user.tenant_id, { userId: user.user_id, email: user.email, roles: [userRole] })
    : Effect.fail(new UserDeprovisioned({ userId: user.user_id }))

/** A new personal token of one of the tenant's users, issued by an admin: audited (`token.issued`). */
export const issueForUserId = (
  tenantId: TenantId,
  userId: string,
  by: AuditLog.Actor
): Effect.Effect<Issued, NotFound | UserDeprovisioned | StoreError, TenantStore | DirectoryStore | Recording> =>
  AuditLog.recorded(
    tenantId,
    Effect.flatMap(DirectoryStore, (directory) => directory.findUser(tenantId, userId as UserId)).pipe(
      Effect.flatMap((user): Effect.Effect<Issued, NotFound | UserDeprovisioned | StoreError, TenantStore> =>
        user === undefined ? Effect.fail(new NotFound({ resource: "user", id: userId })) : issueForUser(user))
    ),
    (issued) => tokenEntry("token.issued", issued.tokenId, by, { user_id: userId })
  )

const holding = (role: string, userId: string | undefined) => (token: ApiTokenRecord) =>
  token.roles.includes(role) && (userId === undefined || token.userId === userId)

/** The tenant's tokens of a role (of one user, when given), oldest first. */
export const list = (
  tenantId: TenantId,
  role: string,
  userId?: string
): Effect.Effect<ReadonlyArray<Listed>, StoreError, TenantStore> =>
  Effect.map(
    Effect.flatMap(TenantStore, (store) => store.listTokens(tenantId, role)),
    (tokens) => tokens.filter(holding(role, userId)).map((t) => ({ tokenId: t.tokenId, createdAt: t.createdAt }))
  )

const tokenKey = (token: Listed): Keyset => ({ value: token.createdAt.getTime(), id: token.tokenId })

/**
 * One page of the tenant's tokens of a role (of one user, when given),
 * newest first, in the list envelope every list has (decision 0003). A holder
 * has few tokens: the page is cut from all of them in memory, in the order
 * and within the snapshot bound the stores' keyset pages follow.
 */
export const listPage = (
  tenantId: TenantId,
  role: string,
  request: NewestFirstRequest,
  userId?: string
): Effect.Effect<Page<Listed>, StoreError | CursorError | InvalidSort, TenantStore | CursorCodec> =>
  paginateNewestFirst(
    request,
    (query) => Effect.map(list(tenantId, role, userId), (tokens) => applyInMemory(tokens, query, tokenKey, (t) => t.createdAt)),
    tokenKey
  )

/**
 * Revokes one of the tenant's tokens of a role (of one user, when given).
 * This process refuses it from the next request, others as soon as the
 * store's announcement reaches them (at worst after the authenticator's
 * 30 s cache). `false` when there is no such token.
 */
export const revoke = (
  tenantId: TenantId,
  role: string,
  tokenId: string,
  by: AuditLog.Actor,
  userId?: string
): Effect.Effect<boolean, StoreError, TenantStore | Recording> =>
  AuditLog.recorded(
    tenantId,
    Effect.gen(function*() {
      const store = yield* TenantStore
      const tokens = yield* store.listTokens(tenantId, role)
      if (!tokens.some((t) => t.tokenId === tokenId && holding(role, userId)(t))) return false
      return yield* store.removeToken(tenantId, tokenId)
    }),
    (revoked) =>
      revoked
        ? tokenEntry(role === scimRole ? "scim_token.revoked" : "token.revoked", tokenId, by, userId === undefined ? { role } : { role, user_id: userId })
        : undefined
  )
