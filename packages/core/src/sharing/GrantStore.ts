/**
 * Port: sharing grants. Scoped by tenant, except the lookup of a public
 * link by its URL token (a link's visitor names no tenant).
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import { type GrantId, type PrincipalType, type State, stateAt, type StoredGrant, type SubjectType } from "./Grant.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"

/** Which grants a list shows; every field narrows it. */
export interface GrantFilter {
  readonly subjectType?: SubjectType | undefined
  readonly subjectId?: string | undefined
  readonly principalType?: PrincipalType | undefined
  /** Grants to any of these audiences (a workspace's links and embeds). */
  readonly principalTypes?: ReadonlyArray<PrincipalType> | undefined
  readonly principalId?: string | undefined
  readonly workspaceId?: string | undefined
  /** Grants made by this actor. */
  readonly createdById?: string | undefined
  /** Grants in this state at `at`. */
  readonly state?: { readonly is: State; readonly at: Date } | undefined
}

/** A grant's position in the newest-first list. */
export const grantKey = (grant: StoredGrant): Keyset => ({ value: grant.created_at.getTime(), id: grant.grant_id })

/** Whether a grant passes a filter. */
export const matches = (grant: StoredGrant, filter: GrantFilter): boolean =>
  (filter.subjectType === undefined || grant.subject_type === filter.subjectType) &&
  (filter.subjectId === undefined || grant.subject_id === filter.subjectId) &&
  (filter.principalType === undefined || grant.principal_type === filter.principalType) &&
  (filter.principalTypes === undefined || filter.principalTypes.includes(grant.principal_type)) &&
  (filter.principalId === undefined || grant.principal_id === filter.principalId) &&
  (filter.workspaceId === undefined || grant.workspace_id === filter.workspaceId) &&
  (filter.createdById === undefined || grant.created_by.id === filter.createdById) &&
  (filter.state === undefined || stateAt(grant, filter.state.at) === filter.state.is)

/** Sharing grants. */
export class GrantStore extends Context.Service<GrantStore, {
  readonly insert: (grant: StoredGrant) => Effect.Effect<void, StoreError>
  readonly find: (tenantId: TenantId, grantId: GrantId) => Effect.Effect<StoredGrant | undefined, StoreError>
  /** A link grant by its URL token, in any tenant. */
  readonly findBySlug: (slug: string) => Effect.Effect<StoredGrant | undefined, StoreError>
  /** One page of the tenant's grants passing `filter`, newest first (revoked and expired ones included). */
  readonly list: (tenantId: TenantId, filter: GrantFilter, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<StoredGrant>, StoreError>
  /** Every grant on any of `subjects` (what access evaluation reads for a subject and what contains it). */
  readonly onSubjects: (
    tenantId: TenantId,
    subjects: ReadonlyArray<{ readonly type: SubjectType; readonly id: string }>
  ) => Effect.Effect<ReadonlyArray<StoredGrant>, StoreError>
  /**
   * Replaces a grant's settings; `false` when there is none. Its opens
   * (`open_count`, `last_opened_at`) stay as `recordOpen` counted them:
   * a change read before an open never writes the open away.
   */
  readonly update: (grant: StoredGrant) => Effect.Effect<boolean, StoreError>
  /**
   * Counts one open of a grant's page at `at` (decision 0014, "Labels and
   * opens"): `open_count` one more, `last_opened_at` set, in one write
   * that concurrent opens cannot lose; nothing when there is no such grant.
   */
  readonly recordOpen: (tenantId: TenantId, grantId: GrantId, at: Date) => Effect.Effect<void, StoreError>
  /** Gives the grants waiting for an invitation to the user who accepted it; how many. */
  readonly activateInvitation: (tenantId: TenantId, invitationId: string, userId: string, at: Date) => Effect.Effect<number, StoreError>
}>()("@analytics/core/GrantStore") {}
