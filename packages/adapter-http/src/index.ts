/**
 * @analytics/adapter-http: the handlers that serve the HTTP contract of
 * `@analytics/api`, and the edge every request passes through.
 *
 * @since 0.1.0
 */
export * as App from "./App.ts"
export * as Argon2PasswordHasher from "./Argon2PasswordHasher.ts"
export * as ExportRoutes from "./ExportRoutes.ts"
export * as FileBlobStore from "./FileBlobStore.ts"
export * as MetricsEndpoint from "./MetricsEndpoint.ts"
export * as ProblemResponses from "./ProblemResponses.ts"
export * as RequestObservability from "./RequestObservability.ts"
export * as ServiceInfo from "./ServiceInfo.ts"
