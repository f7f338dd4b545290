/**
 * The ground every domain stands on: ids, domain errors, cursors and
 * pagination, idempotency, problem codes, the crypto and mail ports,
 * metrics, service secrets, transactions, CSV reading and server paths.
 *
 * @since 0.1.0
 */
export * as Crypto from "./Crypto.ts"
export * as Csv from "./Csv.ts"
export * as Cursor from "./Cursor.ts"
export * as Errors from "./Errors.ts"
export * as HitPath from "./HitPath.ts"
export * as Idempotency from "./Idempotency.ts"
export * as Ids from "./Ids.ts"
export * as Mailer from "./Mailer.ts"
export * as Metrics from "./Metrics.ts"
export * as Pagination from "./Pagination.ts"
export * as ProblemCode from "./ProblemCode.ts"
export * as ServerPaths from "./ServerPaths.ts"
export * as ServiceSecrets from "./ServiceSecrets.ts"
export * as Transactor from "./Transactor.ts"
