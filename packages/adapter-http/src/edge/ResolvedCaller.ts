/**
 * The caller the edge already resolved for this request, so authentication
 * does not resolve the same credential a second time (rate limiting must
 * know the tenant before the route runs; authentication runs inside it).
 *
 * @since 0.1.0
 */
import type { Caller } from "@analytics/core"
import { Context } from "effect"

/** A credential and what it resolved to, provided to the rest of the request by the edge. */
export class ResolvedCaller extends Context.Service<ResolvedCaller, {
  readonly credential: string
  readonly caller: Caller.Caller
}>()("@analytics/adapter-http/ResolvedCaller") {}
