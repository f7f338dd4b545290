/**
 * Who is calling: a tenant member (through an API token or the embedding
 * app's own authenticator) or the operator, who may only provision tenants.
 *
 * @since 0.1.0
 */
import { Context, Data } from "effect"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { User } from "../directory/User.ts"

/**
 * How a member's request came (decision 0022): an API token, the console's
 * session cookie, or the embedding app's own sign-in. Exports count in the
 * UI class for `session` and `embedded`, in the API class otherwise.
 */
export type Channel = "token" | "session" | "embedded"

/** A member of a tenant, acting through a token, a console session or an embedding app's sign-in. */
export class Member extends Data.TaggedClass("Member")<{
  readonly tenantId: TenantId
  readonly userId: string
  readonly email: string | null
  readonly roles: ReadonlyArray<string>
  /** What row-level security may bind rows to (`region`…), as the authenticator knows them. */
  readonly attributes?: Readonly<Record<string, string | number | boolean | ReadonlyArray<string | number | boolean>>> | undefined
  /** How the request came; absent means an API token (an embedder's authenticator need not say). */
  readonly channel?: Channel | undefined
}> {}

/** A user of the directory as a member acting now (their service roles as stored): whom a schedule or a link's maker is. */
export const memberOfUser = (user: User): Member =>
  new Member({ tenantId: user.tenant_id, userId: user.user_id, email: user.email, roles: user.roles })

/** The service operator, who provisions tenants and nothing else. */
export class Operator extends Data.TaggedClass("Operator")<{}> {}

/** Any authenticated caller. */
export type Principal = Member | Operator

/** The authenticated caller of the current request. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()(
  "@analytics/core/CurrentPrincipal"
) {}
