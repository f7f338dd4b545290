/**
 * Port: secrets the service generates for itself (the cursor signing key),
 * persisted so that restarts and sibling instances agree on them.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "./Errors.ts"

/** Persisted service-wide secrets. */
export class ServiceSecrets extends Context.Service<ServiceSecrets, {
  /**
   * The secret named `name`; on first use, stores `generate`'s value. Two
   * instances racing on first use must end up with the same secret.
   */
  readonly getOrCreate: (name: string, generate: Effect.Effect<string>) => Effect.Effect<string, StoreError>
}>()("@analytics/core/ServiceSecrets") {}
