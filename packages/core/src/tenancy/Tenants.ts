/**
 * Use cases on tenants: provisioning by the operator and the bootstrap
 * tenant of a packaged host.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import * as ApiToken from "./ApiToken.ts"
import { type Issue, NotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import { uuidv7 } from "../platform/Ids.ts"
import type { NegotiatedLimits, Plan } from "./Plan.ts"
import { Tenant, type TenantId } from "./Tenant.ts"
import { TenantStore } from "./TenantStore.ts"
import { Transactor } from "../platform/Transactor.ts"

/** The roles of the token a tenant is created with. */
export const adminRoles: ReadonlyArray<string> = ["admin"]

/** A new tenant and the one-time view of its admin token. */
export interface Provisioned {
  readonly tenant: Tenant
  readonly token: string
}

class TokenTaken extends TaggedFailure("TokenTaken")<{}> {}

/** Negotiated limits given with a plan other than Custom: they would silently not apply. */
export class LimitsNeedCustomPlan extends TaggedFailure("LimitsNeedCustomPlan")<{
  readonly plan: Plan
}> {
  readonly code = "request/invalid" as const
  /** The sentence its problem says: the issue says what is wrong. */
  get problemDetail(): string {
    return "The request failed validation; see errors"
  }
  /** The `limits` given. */
  get issue(): Issue {
    return { path: ["body", "limits"], message: `Negotiated limits apply to the custom plan only, not ${this.plan}` }
  }
}

/** What a tenant is provisioned with. */
export interface TenantInput {
  readonly name: string
  readonly plan: Plan
  readonly limits?: NegotiatedLimits | undefined
}

const checkLimits = (input: { readonly plan: Plan; readonly limits?: NegotiatedLimits | undefined }) =>
  input.limits !== undefined && input.plan !== "custom" ? Effect.fail(new LimitsNeedCustomPlan({ plan: input.plan })) : Effect.void

const create = (input: TenantInput, token: string, email: string | null = null) =>
  Effect.gen(function*() {
    const store = yield* TenantStore
    const now = yield* Clock.currentTimeMillis
    const tenant = new Tenant({
      tenant_id: (yield* uuidv7) as TenantId,
      name: input.name,
      plan: input.plan,
      ...(input.limits === undefined ? {} : { limits: input.limits }),
      created_at: new Date(now)
    })
    yield* store.insertTenant(tenant)
    const inserted = yield* store.insertToken({
      tokenId: yield* uuidv7,
      tenantId: tenant.tenant_id,
      tokenHash: yield* ApiToken.hash(token),
      userId: `admin@${tenant.tenant_id}`,
      email,
      roles: adminRoles,
      createdAt: new Date(now)
    })
    if (!inserted) return yield* new TokenTaken()
    return tenant
  })

/** Creates a tenant with a fresh admin token. */
export const provision = (
  input: TenantInput
): Effect.Effect<Provisioned, LimitsNeedCustomPlan | StoreError, TenantStore | Transactor> =>
  Effect.gen(function*() {
    yield* checkLimits(input)
    const token = yield* ApiToken.generate
    const transactor = yield* Transactor
    const tenant = yield* transactor.transaction(create(input, token)).pipe(
      // 256 random bits never collide; a collision would be a broken random source.
      Effect.catchTag("TokenTaken", () => Effect.die(new Error("A freshly generated token already exists")))
    )
    return { tenant, token }
  })

/**
 * Ensures a tenant whose admin token is `token` exists (the packaged host's
 * `ANALYTICS_BOOTSTRAP_TOKEN`); safe when several instances start at once.
 */
export const ensureBootstrap = (input: {
  readonly token: string
  readonly plan: Plan
  readonly name: string
  /** The admin's e-mail address (where, for example, a disabled webhook's notice goes). */
  readonly email?: string | null | undefined
}): Effect.Effect<TenantId, StoreError, TenantStore | Transactor> =>
  Effect.gen(function*() {
    const store = yield* TenantStore
    const transactor = yield* Transactor
    const tokenHash = yield* ApiToken.hash(input.token)
    const existing = yield* store.findTokenByHash(tokenHash)
    if (existing !== undefined) return existing.tenantId
    return yield* transactor.transaction(create(input, input.token, input.email ?? null)).pipe(
      Effect.map((tenant) => tenant.tenant_id),
      Effect.catchTag("TokenTaken", () =>
        Effect.flatMap(store.findTokenByHash(tokenHash), (record) =>
          record === undefined
            ? Effect.die(new Error("The bootstrap token vanished while being created"))
            : Effect.succeed(record.tenantId)))
    )
  })

/**
 * Moves a tenant to another plan (with negotiated limits on Custom; leaving
 * Custom drops them). It applies from the tenant's next request: the store
 * reports the change to every process's TenantCache.
 */
export const changePlan = (
  tenantId: TenantId,
  change: { readonly plan: Plan; readonly limits?: NegotiatedLimits | undefined }
): Effect.Effect<Tenant, LimitsNeedCustomPlan | NotFound | StoreError, TenantStore> =>
  Effect.gen(function*() {
    yield* checkLimits(change)
    const store = yield* TenantStore
    const current = yield* store.findTenant(tenantId)
    const notFound = new NotFound({ resource: "tenant", id: tenantId })
    if (current === undefined) return yield* notFound
    const { limits: _, ...rest } = current
    const updated = new Tenant({ ...rest, plan: change.plan, ...(change.limits === undefined ? {} : { limits: change.limits }) })
    if (!(yield* store.updateTenant(updated))) return yield* notFound
    return updated
  })
