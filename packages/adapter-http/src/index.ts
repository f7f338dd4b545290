/**
 * @analytics/adapter-http: the handlers that serve the HTTP contract of
 * `@analytics/api`, the routes outside it, and the edge every request
 * passes through.
 *
 * @since 0.1.0
 */

/** The whole service as a Node or fetch-style handler, and its layers. */
export * as App from "./App.ts"
/** Domain errors as the API's problems, for routes of one's own beside the API. */
export * as DomainProblems from "./edge/DomainProblems.ts"
/** The export result files: signed links and their downloads. */
export * as ExportRoutes from "./routes/ExportRoutes.ts"
/** The last line of defence: problem+json for what no endpoint declares, and the Node parser's refusals. */
export * as LastLineProblems from "./edge/LastLineProblems.ts"
/** `GET /metrics` for Prometheus. */
export * as MetricsEndpoint from "./routes/MetricsEndpoint.ts"
/** Request ids, request metrics and route templates. */
export * as RequestObservability from "./edge/RequestObservability.ts"
/** What the service tells about itself: version, public base URL, branding, features. */
export * as ServiceInfo from "./ServiceInfo.ts"
/** The report viewer's built files, which shared reports' pages load, and their route. */
export * as ViewerAssets from "./routes/ViewerAssets.ts"
