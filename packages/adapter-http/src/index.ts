/**
 * @analytics/adapter-http: the HTTP contract of the analytics service and
 * the handlers that serve it.
 *
 * @since 0.1.0
 */
export * as Api from "./Api.ts"
export * as App from "./App.ts"
export * as Client from "./Client.ts"
export * as ExportRoutes from "./ExportRoutes.ts"
export * as MetricsEndpoint from "./MetricsEndpoint.ts"
export * as ProblemResponses from "./ProblemResponses.ts"
export * as Problems from "./Problems.ts"
export * as RequestObservability from "./RequestObservability.ts"
export * as ServiceInfo from "./ServiceInfo.ts"
