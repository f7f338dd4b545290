/**
 * @analytics/adapter-webhook-https: webhook attempts over Node's HTTPS,
 * behind the egress guard.
 *
 * @since 0.1.0
 */
export * as HttpsTransport from "./HttpsTransport.ts"
