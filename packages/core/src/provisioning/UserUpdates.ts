/**
 * A change of a user by a tenant admin: name, service roles or status. It
 * sits with provisioning, not with the directory's other use cases, because
 * a deactivation stops in the same transaction what acts for the user
 * (`Deprovisioning.stopActingFor`: sessions, tokens, webhooks, export
 * schedules), which needs the domains above the directory.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import { getUser, type Recording, userEntry } from "../directory/DirectoryUseCases.ts"
import { DirectoryStore } from "../directory/DirectoryStore.ts"
import type { User, UserUpdate } from "../directory/User.ts"
import { NotFound, type StoreError } from "../platform/Errors.ts"
import { Transactor } from "../platform/Transactor.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import * as Deprovisioning from "./Deprovisioning.ts"

/**
 * Changes a user's name, service roles or status. A deprovisioned user has
 * no access from the next request on.
 */
export const updateUser = (
  tenantId: TenantId,
  userId: string,
  change: UserUpdate,
  by: AuditLog.Actor
): Effect.Effect<User, NotFound | StoreError, DirectoryStore | Recording | Deprovisioning.Services> =>
  Effect.flatMap(Transactor, (transactor) =>
    transactor.transaction(Effect.gen(function*() {
      const current = yield* getUser(tenantId, userId)
      const updated: User = {
        ...current,
        name: change.name ?? current.name,
        roles: change.roles ?? current.roles,
        status: change.status ?? current.status,
        updated_at: new Date(yield* Clock.currentTimeMillis)
      }
      const written = yield* (yield* DirectoryStore).updateUser(updated)
      // The e-mail does not change here, so only a concurrent delete can make it missing.
      if (written !== "written") return yield* new NotFound({ resource: "user", id: userId })
      const deprovisioned = current.status === "active" && updated.status !== "active"
      if (deprovisioned) yield* Deprovisioning.stopActingFor(tenantId, current.user_id, by)
      // What changed, each as it was and as it is.
      const changes = Object.fromEntries((["name", "roles", "status"] as const)
        .filter((field) => JSON.stringify(current[field]) !== JSON.stringify(updated[field]))
        .map((field) => [field, { from: current[field], to: updated[field] }]))
      const action = deprovisioned ? "user.deprovisioned" : current.status !== "active" && updated.status === "active" ? "user.reactivated" : "user.updated"
      yield* AuditLog.record(tenantId, userEntry(action, updated, by, { changes }))
      return updated
    })))
