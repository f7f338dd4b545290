/**
 * Tenants: the unit of isolation. Every record belongs to exactly one.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Uuid } from "../platform/Ids.ts"
import { NegotiatedLimits, Plan } from "./Plan.ts"

/** A tenant's identifier. */
export const TenantId = Uuid.pipe(Schema.brand("TenantId"))
/** A tenant's identifier. */
export type TenantId = typeof TenantId.Type

/** A display name: trimmed, 1 to 200 characters. */
export const Name = Schema.String.check(
  Schema.isTrimmed(),
  Schema.isMinLength(1),
  Schema.isMaxCodePoints(200)
).annotate({ description: "A display name, 1 to 200 characters, without surrounding spaces" })

/** A tenant as stored. */
export class Tenant extends Schema.Class<Tenant>("Tenant")({
  tenant_id: TenantId,
  name: Name,
  plan: Plan,
  /** The Custom plan's negotiated numbers; absent on the other plans. */
  limits: Schema.optionalKey(NegotiatedLimits),
  created_at: Schema.Date
}) {}
