/**
 * A dataset refresh as its log keeps it (`GET /v1/datasets/{id}/refreshes`):
 * when it ran, what started it and who, how it ended, how many rows it
 * found and how long it took. One entry per refresh, written when it ends;
 * the same refresh's `dataset.refresh.*` events carry its `refresh_id`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Actor } from "../audit/AuditLog.ts"
import type { Keyset } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"

/** What started a refresh: a file uploaded, a call of `POST /v1/datasets/{id}/refresh`, or its schedule. */
export const Trigger = Schema.Literals(["upload", "manual", "schedule"])
/** What started a refresh. */
export type Trigger = typeof Trigger.Type

/** How a refresh ended. */
export const Status = Schema.Literals(["succeeded", "failed"])
/** How a refresh ended. */
export type Status = typeof Status.Type

/** Why a refresh failed, as its `dataset.refresh.failed` event says it (never a server's path or host). */
export const Failure = Schema.Struct({ code: Schema.String, message: Schema.String })
/** Why a refresh failed. */
export type Failure = typeof Failure.Type

/** Who started a refresh and how; a schedule's has no actor. */
export interface Origin {
  readonly trigger: Trigger
  readonly requested_by: Actor | null
}

/** A refresh started by its schedule: nobody asked. */
export const scheduled: Origin = { trigger: "schedule", requested_by: null }

/** A refresh as the log keeps it. */
export interface DatasetRefresh extends Origin {
  readonly refresh_id: string
  readonly tenant_id: TenantId
  readonly dataset_id: string
  readonly status: Status
  /** The rows it found; `null` when it failed. */
  readonly row_count: number | null
  readonly error: Failure | null
  readonly started_at: Date
  readonly finished_at: Date
  readonly duration_ms: number
}

/** A refresh's position in the newest-first log. */
export const refreshKey = (refresh: DatasetRefresh): Keyset => ({ value: refresh.started_at.getTime(), id: refresh.refresh_id })
