/**
 * The endpoint class an endpoint is counted in at the edge (decision 0009).
 *
 * @since 0.1.0
 */
import type { RateLimit } from "@analytics/core"
import { Context } from "effect"

/**
 * The endpoint class an endpoint is counted in: every endpoint of the API
 * declares one (`.annotate(RateLimitClass, "read")`); adapter-http's rate
 * limiting refuses an API where one does not.
 */
export class RateLimitClass extends Context.Service<RateLimitClass, RateLimit.EndpointClass>()(
  "@analytics/api/RateLimitClass"
) {}
