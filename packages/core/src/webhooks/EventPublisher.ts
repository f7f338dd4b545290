/**
 * Port: publishing events (decision 0010). Every feature that changes something
 * publishes its event through this, inside the transaction of the change,
 * so the event commits with it or not at all (transactional outbox).
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer, type Schema } from "effect"
import { DeliveryStore } from "./DeliveryStore.ts"
import type { StoreError } from "../platform/Errors.ts"
import * as Events from "./Events.ts"
import type { TenantId } from "../tenancy/Tenant.ts"

/** Publishes events to the webhooks that hear them. */
export class EventPublisher extends Context.Service<EventPublisher, {
  /** Writes the event's deliveries in the current transaction (if any); how many webhooks hear it. */
  readonly publish: (tenantId: TenantId, event: Events.Envelope) => Effect.Effect<number, StoreError>
}>()("@analytics/core/EventPublisher") {
  /** The publisher over the DeliveryStore's outbox. */
  static readonly layer = Layer.effect(
    EventPublisher,
    Effect.map(DeliveryStore, (store) =>
      EventPublisher.of({
        publish: (tenantId, event) => Effect.flatMap(Clock.currentTimeMillis, (now) => store.publish(tenantId, event, new Date(now)))
      }))
  )
}

/** Makes an event of `type` (checking its `data`) and publishes it. */
export const publish = <T extends Events.EventType>(
  tenantId: TenantId,
  type: T,
  workspaceId: string,
  data: Events.Data<T>
): Effect.Effect<Events.Envelope<T>, StoreError | Schema.SchemaError, EventPublisher> =>
  Effect.gen(function*() {
    const event = yield* Events.make(type, workspaceId, data)
    yield* (yield* EventPublisher).publish(tenantId, event)
    return event
  })
