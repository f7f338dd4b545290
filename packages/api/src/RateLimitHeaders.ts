/**
 * The rate-limit headers of decision 0009, named once: the edge writes them
 * by these names and the OpenAPI document declares them, on every response
 * of a counted request, and `Retry-After` on every 429 (and on a job's
 * status while it runs).
 *
 * @since 0.1.0
 */

/** The quotas every counted request is measured against, as the headers name them. */
export const quotas = ["burst", "sustained"] as const

/** The three headers of one quota (lower case, as the edge writes every header). */
export const quotaHeaderNames = (quota: string) => {
  const name = quota.toLowerCase()
  return { limit: `x-ratelimit-limit-${name}`, remaining: `x-ratelimit-remaining-${name}`, reset: `x-ratelimit-reset-${name}` }
}

/** The IETF draft's headers (draft-ietf-httpapi-ratelimit-headers), beside decision 0009's. */
export const policyHeader = "ratelimit-policy"
/** The remaining count and the seconds until reset of each quota (the draft's `RateLimit`). */
export const stateHeader = "ratelimit"
/** Seconds to wait before the next request passes. */
export const retryAfterHeader = "retry-after"

/**
 * Whether the edge counts requests to a path whatever their credential
 * (`/v1…`, the console's `/api/session…`, SCIM); requests elsewhere are
 * counted only when they carry a tenant's or the operator's credential.
 */
export const isCountedPath = (path: string): boolean =>
  path === "/v1" || path.startsWith("/v1/") || path === "/api/session" || path.startsWith("/api/session/") ||
  path.startsWith("/scim/")

const quotaTitle = (quota: string) => `${quota[0]!.toUpperCase()}${quota.slice(1)}`

/** Each header's name as the document spells it, its schema and description. */
const definitions = (): ReadonlyArray<{ readonly name: string; readonly schema: object; readonly description: string }> => [
  ...quotas.flatMap((quota) => {
    const title = quotaTitle(quota)
    const period = quota === "burst" ? "the burst bucket (a 1-minute fill window)" : "the sustained window (1 hour)"
    return [
      { name: `X-RateLimit-Limit-${title}`, schema: { type: "integer", minimum: 0 }, description: `The capacity of ${period} of this endpoint class` },
      { name: `X-RateLimit-Remaining-${title}`, schema: { type: "integer", minimum: 0 }, description: `Requests left in ${period}` },
      { name: `X-RateLimit-Reset-${title}`, schema: { type: "string", format: "date-time" }, description: `When ${period} is full again, ISO 8601 UTC` }
    ]
  }),
  {
    name: "RateLimit-Policy",
    schema: { type: "string" },
    description: "Each quota's limit and window in seconds, as draft-ietf-httpapi-ratelimit-headers writes it: `\"burst\";q=60;w=60, \"sustained\";q=2000;w=3600`"
  },
  {
    name: "RateLimit",
    schema: { type: "string" },
    description: "Each quota's remaining requests and seconds until reset, as draft-ietf-httpapi-ratelimit-headers writes it: `\"burst\";r=59;t=1, \"sustained\";r=1999;t=3600`"
  }
]

/** The component name of a header: required, or (`optional`) sent only when the request was counted. */
const componentOf = (name: string, optional: boolean) => (optional ? `${name}.when-counted` : name)

const retryAfter = {
  schema: { type: "integer", minimum: 0 },
  description: "Seconds to wait before retrying (on a 429: the shortest wait after which the next request is let through)"
}

/**
 * Declares the rate-limit headers in an OpenAPI document (for
 * `OpenApi.Transform`): as components, referenced from every response of
 * every operation. On a counted path they are required, but on a 503 (the
 * limits' store itself may be what failed); elsewhere optional (sent when a
 * credential was). Every 429 requires `Retry-After`.
 */
export const document = (spec: Record<string, any>): Record<string, any> => {
  const components = (spec.components ??= {})
  const headers = (components.headers ??= {})
  for (const { name, schema, description } of definitions()) {
    headers[componentOf(name, false)] = { required: true, schema, description }
    headers[componentOf(name, true)] = { required: false, schema, description: `${description}; on a response of a counted request` }
  }
  headers["Retry-After"] = { required: true, ...retryAfter }
  headers[componentOf("Retry-After", true)] = { required: false, ...retryAfter }
  for (const [path, item] of Object.entries<Record<string, any>>(spec.paths ?? {})) {
    for (const operation of Object.values(item)) {
      for (const [status, response] of Object.entries<any>(operation?.responses ?? {})) {
        const optional = !isCountedPath(path) || status === "503"
        const declared: Record<string, unknown> = {}
        for (const { name } of definitions()) declared[name] = { $ref: `#/components/headers/${componentOf(name, optional)}` }
        if (status === "429") declared["Retry-After"] = { $ref: "#/components/headers/Retry-After" }
        response.headers = { ...response.headers, ...declared }
      }
    }
  }
  return spec
}

/**
 * An operation's transform (`OpenApi.Transform` on an endpoint) declaring
 * `Retry-After` on its `status` response when it sends one there (a job's
 * status while the job runs: when to look again).
 */
export const retryAfterOn = (status: number) => (operation: Record<string, any>): Record<string, any> => {
  const response = operation.responses?.[status]
  if (response !== undefined) {
    response.headers = { ...response.headers, "Retry-After": { $ref: `#/components/headers/${componentOf("Retry-After", true)}` } }
  }
  return operation
}
