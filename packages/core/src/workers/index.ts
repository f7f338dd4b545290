/**
 * The service's background work as one layer (the export worker, webhook
 * delivery, schedules, purges, gauges), for the host and embedding apps.
 *
 * @since 0.1.0
 */
export * as Workers from "./Workers.ts"
