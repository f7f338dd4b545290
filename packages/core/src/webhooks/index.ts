/**
 * Outbound events: the event catalogue, webhooks and their secrets, URL and
 * egress checks, signatures, retries, the delivery store and the dispatcher.
 *
 * @since 0.1.0
 */
export * as DeliveryStore from "./DeliveryStore.ts"
export * as EgressGuard from "./EgressGuard.ts"
export * as EventPublisher from "./EventPublisher.ts"
export * as Events from "./Events.ts"
export * as RetrySchedule from "./RetrySchedule.ts"
export * as Webhook from "./Webhook.ts"
export * as WebhookDispatcher from "./WebhookDispatcher.ts"
export * as WebhookSecrets from "./WebhookSecrets.ts"
export * as WebhookSignature from "./WebhookSignature.ts"
export * as WebhookStore from "./WebhookStore.ts"
export * as WebhookTransport from "./WebhookTransport.ts"
export * as WebhookUrl from "./WebhookUrl.ts"
export * as Webhooks from "./Webhooks.ts"
