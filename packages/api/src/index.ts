/**
 * @analytics/api: the HTTP contract of the analytics service (one HttpApi
 * from which the server, the OpenAPI 3.1 document and the typed client
 * derive), and the typed client. Depends on `@analytics/core` and `effect`
 * only.
 *
 * @since 0.1.0
 */

/** The whole API, assembled from its groups. */
export { Api } from "./Api.ts"
/** The typed client derived from the contract. */
export * as Client from "./Client.ts"
/** The endpoint groups, one module each. */
export * as Groups from "./groups/index.ts"
/** The CRUD-shaped endpoints (list, create, get, update, remove, actions), each built once from its schemas and declared problems. */
export * as Endpoints from "./Endpoints.ts"
/** The JSON a schema of the contract travels as (its encoded side), for clients to name response shapes by. */
export type { Json } from "./Json.ts"
/** The list envelope every list answers (decision 0003). */
export * as ListEnvelope from "./ListEnvelope.ts"
/** The middleware the contract declares: authentication, idempotency, validation. */
export * as Middleware from "./Middleware.ts"
/** The problem+json bodies the API declares, one class per problem code. */
export * as Problems from "./Problems.ts"
/** The problem class of each problem code, derived from Problems: the one table a domain error's code is answered by. */
export * as ProblemClasses from "./ProblemClasses.ts"
/** The query parameters shared by list endpoints, and their OpenAPI documentation. */
export * as QueryParams from "./QueryParams.ts"
/** The answer to a semantic query and the problems running one may answer. */
export * as QueryResult from "./QueryResult.ts"
/** The upload's entry in the OpenAPI document (its route is served beside the contract). */
export * as Uploads from "./Uploads.ts"
/** The endpoint class an endpoint is counted in at the edge. */
export { RateLimitClass } from "./RateLimitClass.ts"
/** The problems of reading a request body (413, 415), declared on every operation that takes one. */
export * as RequestBodyProblems from "./RequestBodyProblems.ts"
/** The response headers declared besides the rate limits': X-Request-Id on every answer, an operation's own. */
export * as ResponseHeaders from "./ResponseHeaders.ts"
/** The rate-limit headers, named once for the edge and the OpenAPI document. */
export * as RateLimitHeaders from "./RateLimitHeaders.ts"
/** A report or dashboard as the viewer's data: the JSON the browser's `<report-viewer>` draws. */
export * as ViewerData from "./ViewerData.ts"
/** The list, create, get, update and delete endpoints of a workspace resource, built from its schemas. */
export * as ResourceEndpoints from "./ResourceEndpoints.ts"
