/**
 * The WebhookStore and the DeliveryStore over `SqlClient` (PostgreSQL and
 * PGlite). The deliveries table is the outbox and the queue: `publish` is
 * one statement in the caller's transaction; `claim` leases due rows with
 * `FOR UPDATE SKIP LOCKED`, so any number of workers on one database share
 * the work without taking a row twice; a crashed worker's leases run out.
 *
 * @since 0.1.0
 */
import { DeliveryStore, type Events, Ids, type Tenant, Webhook, WebhookStore, type Workspace } from "@analytics/core"
import { Effect, Option, PubSub, Schema, SchemaIssue, SchemaTransformation, Stream } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.ts"
import { afterNewestFirst } from "./SqlKeyset.ts"
import { failAs, isId } from "./StoreErrors.ts"
import * as Batcher from "./Batcher.ts"
import { listen } from "./Listen.ts"

/** The channel that tells every worker on the database that deliveries may be due. */
const wakeupChannel = "analytics_webhook_deliveries"

// --- rows ------------------------------------------------------------------------------

/** A webhook's columns but its times. */
const webhookFields = {
  webhook_id: Schema.String,
  tenant_id: Schema.String,
  workspace_id: Schema.NullOr(Schema.String),
  url: Schema.String,
  events: Schema.Array(Schema.String),
  description: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  disabled_reason: Schema.NullOr(Schema.String),
  owner_user_id: Schema.String,
  owner_email: Schema.NullOr(Schema.String),
  secret: Schema.String,
  previous_secret: Schema.NullOr(Schema.String),
  previous_secret_until: Schema.NullOr(Rows.Numeric)
}

const WebhookRow = Schema.Struct({ ...webhookFields, created_at: Schema.Date, updated_at: Schema.Date })
/** A webhook's row as `row_to_json` gives it: its times as ISO text. */
const WebhookJson = Schema.Struct({ ...webhookFields, created_at: Schema.DateFromString, updated_at: Schema.DateFromString })

const webhookColumns = `webhook_id, tenant_id, workspace_id, url, events, description, enabled, disabled_reason,
  owner_user_id, owner_email, secret, previous_secret, previous_secret_until, created_at, updated_at`

// Ids and events were validated on the way in.
const toWebhook = (row: typeof WebhookRow.Type): Webhook.Webhook => ({
  webhook_id: row.webhook_id as Webhook.WebhookId,
  tenant_id: row.tenant_id as Tenant.TenantId,
  workspace_id: row.workspace_id as Workspace.WorkspaceId | null,
  url: row.url,
  events: row.events as ReadonlyArray<Events.EventType>,
  description: row.description,
  enabled: row.enabled,
  disabled_reason: row.disabled_reason,
  owner: { userId: row.owner_user_id, email: row.owner_email },
  secrets: row.previous_secret === null
    ? { current: row.secret }
    : { current: row.secret, previous: { secret: row.previous_secret, until: Number(row.previous_secret_until) } },
  created_at: row.created_at,
  updated_at: row.updated_at
})

const webhooks = Rows.reader(WebhookRow, toWebhook)

const Headers = Schema.NullOr(Schema.Record(Schema.String, Schema.String))

/** An attempt as its delivery's jsonb keeps it: its time as ISO text. */
const AttemptJson = Schema.Struct({
  attempted_at: Schema.DateFromString,
  status_code: Schema.NullOr(Schema.Number),
  latency_ms: Schema.Number,
  error: Schema.NullOr(Schema.String),
  response_excerpt: Schema.optionalKey(Schema.NullOr(Schema.String)),
  // Kept in the attempt's JSON, so older rows need no migration (decision 0010).
  request_headers: Schema.optionalKey(Headers),
  response_headers: Schema.optionalKey(Headers)
})

/** A delivery's body: the text sent as it is, and the event it carries. */
const Body = Schema.String.pipe(Schema.decodeTo(
  Schema.Struct({ text: Schema.String, event: Schema.Unknown }),
  SchemaTransformation.transformEffect({
    decode: (text: string) =>
      Effect.try({
        try: () => ({ text, event: JSON.parse(text) as unknown }),
        catch: () => new SchemaIssue.InvalidValue({ message: "Expected an event as JSON" }, text)
      }),
    encode: ({ text }) => Effect.succeed(text)
  })
))

const DeliveryRow = Schema.Struct({
  delivery_id: Schema.String,
  tenant_id: Schema.String,
  webhook_id: Schema.String,
  body: Body,
  status: Webhook.DeliveryStatus,
  attempts: Rows.Jsonb(Schema.Array(AttemptJson)),
  failures: Schema.Number,
  next_attempt_at: Schema.NullOr(Schema.Date),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const deliveryColumns = `delivery_id, tenant_id, webhook_id, body, status, attempts, failures, next_attempt_at,
  created_at, updated_at`

const toDelivery = (row: typeof DeliveryRow.Type): Webhook.Delivery => ({
  delivery_id: row.delivery_id as Webhook.DeliveryId,
  tenant_id: row.tenant_id as Tenant.TenantId,
  webhook_id: row.webhook_id as Webhook.WebhookId,
  // Written by `publish` from an envelope of the catalogue (`Events.make` checks it, `Events.envelope` builds it from typed fields).
  event: row.body.event as Webhook.Delivery["event"],
  status: row.status,
  attempts: row.attempts,
  failures: row.failures,
  next_attempt_at: row.next_attempt_at,
  created_at: row.created_at,
  updated_at: row.updated_at
})

const deliveries = Rows.reader(DeliveryRow, toDelivery)

/** A claimed delivery: its row, and its webhook's as JSON. */
const claims = Rows.reader(Schema.Struct({ ...DeliveryRow.fields, webhook: Rows.Jsonb(WebhookJson) }))

const settled = Rows.reader(Schema.Struct({ delivery_id: Schema.String }), (row) => row.delivery_id)

const tallies = Rows.reader(Schema.Struct({ succeeded: Rows.Numeric, failed: Rows.Numeric }))

const attemptJson = (attempt: Webhook.Attempt): string =>
  JSON.stringify([{ ...attempt, attempted_at: attempt.attempted_at.toISOString() }])

/** One attempt to record. */
interface Settling {
  readonly claim: DeliveryStore.Claim
  readonly s: DeliveryStore.Settlement
  readonly now: Date
}

// --- stores ------------------------------------------------------------------------------

/** Both stores over the `SqlClient` in context. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const local = yield* PubSub.sliding<void>(1)
  const wake = PubSub.publish(local, undefined)
  /** Wakes this process's workers, and (at commit) every other process's. */
  const wakeEverywhere = Effect.andThen(sql`SELECT pg_notify(${wakeupChannel}, '')`, wake)
  const webhookSelect = sql.literal(webhookColumns)
  const deliverySelect = sql.literal(deliveryColumns)
  const findWebhook = (tenantId: string, webhookId: string) =>
    sql`SELECT ${webhookSelect} FROM webhooks WHERE tenant_id = ${tenantId} AND webhook_id = ${webhookId}`

  const webhookStore = WebhookStore.WebhookStore.of({
    insert: (w) =>
      sql`INSERT INTO webhooks (${webhookSelect}) VALUES (${w.webhook_id}, ${w.tenant_id}, ${w.workspace_id}, ${w.url},
          ${w.events}, ${w.description}, ${w.enabled}, ${w.disabled_reason}, ${w.owner.userId}, ${w.owner.email},
          ${w.secrets.current}, ${w.secrets.previous?.secret ?? null}, ${w.secrets.previous?.until ?? null},
          ${w.created_at}, ${w.updated_at})`.pipe(Effect.asVoid, failAs("WebhookStore.insert")),
    find: (tenantId, webhookId) => {
      if (!isId(tenantId) || !isId(webhookId)) return Effect.succeed(undefined)
      return findWebhook(tenantId, webhookId).pipe(webhooks.first("WebhookStore.find"))
    },
    list: (tenantId, query) => {
      if (!isId(tenantId)) return Effect.succeed([])
      return sql`SELECT ${webhookSelect} FROM webhooks
        WHERE tenant_id = ${tenantId} AND created_at <= ${query.createdAtOrBefore} ${afterNewestFirst(sql, query, "webhook_id")}
        ORDER BY created_at DESC, webhook_id ASC LIMIT ${query.take}`.pipe(webhooks.all("WebhookStore.list"))
    },
    update: (w) => {
      if (!isId(w.tenant_id) || !isId(w.webhook_id)) return Effect.succeed(false)
      return sql`UPDATE webhooks SET url = ${w.url}, events = ${w.events}, description = ${w.description},
          enabled = ${w.enabled}, disabled_reason = ${w.disabled_reason}, secret = ${w.secrets.current},
          previous_secret = ${w.secrets.previous?.secret ?? null},
          previous_secret_until = ${w.secrets.previous?.until ?? null}, updated_at = ${w.updated_at}
        WHERE tenant_id = ${w.tenant_id} AND webhook_id = ${w.webhook_id} RETURNING webhook_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("WebhookStore.update")
      )
    },
    remove: (tenantId, webhookId) => {
      if (!isId(tenantId) || !isId(webhookId)) return Effect.succeed(false)
      return sql`DELETE FROM webhooks WHERE tenant_id = ${tenantId} AND webhook_id = ${webhookId} RETURNING webhook_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("WebhookStore.remove")
      )
    }
  })

  /** Fails a webhook's unfinished deliveries. */
  const failUnfinished = (tenantId: string, webhookId: string, now: Date) =>
    sql`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, lease = NULL, lease_until = NULL,
        updated_at = ${now}
      WHERE tenant_id = ${tenantId} AND webhook_id = ${webhookId} AND next_attempt_at IS NOT NULL
      RETURNING 1`.pipe(Effect.map((rows) => rows.length))

  /** Records attempts under their leases, in one statement; for each, whether its lease still held. */
  const settleRows = (rows: ReadonlyArray<Settling>) =>
    Effect.map(
      sql`UPDATE webhook_deliveries d SET status = v.status,
          attempts = d.attempts || v.attempt, failures = v.failures, next_attempt_at = NULLIF(v.next_attempt_at, '')::timestamptz,
          lease = NULL, lease_until = NULL, updated_at = v.updated_at::timestamptz
        FROM unnest(${rows.map((r) => r.claim.delivery.delivery_id)}::uuid[], ${rows.map((r) => r.claim.lease)}::uuid[],
          ${rows.map((r) => r.s.status)}::text[], ${rows.map((r) => attemptJson(r.s.attempt))}::jsonb[],
          ${rows.map((r) => String(r.s.failures))}::int[],
          -- Arrays of text: '' stands for no next attempt.
          ${rows.map((r) => r.s.nextAttemptAt?.toISOString() ?? "")}::text[],
          ${rows.map((r) => r.now.toISOString())}::text[])
          AS v(delivery_id, lease, status, attempt, failures, next_attempt_at, updated_at)
        WHERE d.delivery_id = v.delivery_id AND d.lease = v.lease
        RETURNING d.delivery_id`.pipe(Effect.flatMap(settled.decodeAll("DeliveryStore.settle"))),
      (settledIds) => {
        const ids = new Set(settledIds)
        return rows.map((r) => ids.has(r.claim.delivery.delivery_id))
      }
    )
  // Workers settle many attempts at once: they share statements (see Batcher).
  const settleBatched = Batcher.make(settleRows, 500)

  const deliveryStore = DeliveryStore.DeliveryStore.of({
    publish: (tenantId, event, now) =>
      // One statement: the deliveries of every webhook that hears the event, and the wake-up PostgreSQL sends at commit.
      sql`WITH inserted AS (
          INSERT INTO webhook_deliveries (delivery_id, tenant_id, webhook_id, event_type, body, status, next_attempt_at,
            created_at, updated_at)
          SELECT analytics_uuidv7(${now.getTime()}), tenant_id, webhook_id, ${event.type}, ${JSON.stringify(event)},
            'pending', ${now}, ${now}, ${now}
          FROM webhooks
          WHERE tenant_id = ${tenantId} AND enabled AND ${event.type} = ANY (events)
            AND (workspace_id IS NULL OR workspace_id::text = ${event.workspace_id})
            -- The firehose reaches Scale tenants only, whatever they subscribed to before a change of plan.
            AND (${event.type} <> ${Webhook.firehose}
              OR EXISTS (SELECT 1 FROM tenants t WHERE t.tenant_id = ${tenantId} AND t.plan = 'scale'))
          RETURNING 1
        )
        SELECT count(*) AS count, CASE WHEN count(*) > 0 THEN pg_notify(${wakeupChannel}, '') END AS notified FROM inserted`.pipe(
        Rows.count("DeliveryStore.publish"),
        Effect.tap((n) => n > 0 ? wake : Effect.void)
      ),
    enqueue: (webhook, event, now) =>
      Effect.gen(function*() {
        const id = yield* Ids.uuidv7
        const delivery = yield* sql`INSERT INTO webhook_deliveries (delivery_id, tenant_id, webhook_id, event_type,
            body, status, next_attempt_at, created_at, updated_at)
          VALUES (${id}, ${webhook.tenant_id}, ${webhook.webhook_id}, ${event.type}, ${JSON.stringify(event)}, 'pending',
            ${now}, ${now}, ${now})
          RETURNING ${deliverySelect}`.pipe(Effect.flatMap((rows) => deliveries.decodeOne("DeliveryStore.enqueue")(rows[0])))
        yield* wakeEverywhere
        return delivery
      }).pipe(failAs("DeliveryStore.enqueue")),
    find: (tenantId, webhookId, deliveryId) => {
      if (!isId(tenantId) || !isId(webhookId) || !isId(deliveryId)) return Effect.succeed(undefined)
      return sql`SELECT ${deliverySelect} FROM webhook_deliveries
        WHERE tenant_id = ${tenantId} AND webhook_id = ${webhookId} AND delivery_id = ${deliveryId}`.pipe(
        deliveries.first("DeliveryStore.find")
      )
    },
    list: (tenantId, webhookId, query, filter) => {
      if (!isId(tenantId) || !isId(webhookId)) return Effect.succeed([])
      const status = filter.status === undefined ? sql.literal("") : sql`AND status = ${filter.status}`
      const type = filter.eventType === undefined ? sql.literal("") : sql`AND event_type = ${filter.eventType}`
      return sql`SELECT ${deliverySelect} FROM webhook_deliveries
        WHERE webhook_id = ${webhookId} AND tenant_id = ${tenantId} AND created_at <= ${query.createdAtOrBefore}
          ${afterNewestFirst(sql, query, "delivery_id")} ${status} ${type}
        ORDER BY created_at DESC, delivery_id ASC LIMIT ${query.take}`.pipe(deliveries.all("DeliveryStore.list"))
    },
    tally: (tenantId, webhookId, since) => {
      if (!isId(tenantId) || !isId(webhookId)) return Effect.succeed({ succeeded: 0, failed: 0 })
      // A delivery attempted since `since` changed since then: updated_at narrows the rows read.
      return sql`SELECT
          count(*) FILTER (WHERE a.attempt->>'error' IS NULL) AS succeeded,
          count(*) FILTER (WHERE a.attempt->>'error' IS NOT NULL) AS failed
        FROM webhook_deliveries d CROSS JOIN LATERAL jsonb_array_elements(d.attempts) AS a(attempt)
        WHERE d.tenant_id = ${tenantId} AND d.webhook_id = ${webhookId} AND d.updated_at >= ${since}
          AND (a.attempt->>'attempted_at')::timestamptz >= ${since}`.pipe(
        tallies.first("DeliveryStore.tally"),
        Effect.map((row) => ({ succeeded: row?.succeeded ?? 0, failed: row?.failed ?? 0 }))
      )
    },
    restart: (tenantId, webhookId, deliveryId, now) => {
      if (!isId(tenantId) || !isId(webhookId) || !isId(deliveryId)) return Effect.succeed(undefined)
      return sql`UPDATE webhook_deliveries SET status = 'pending', failures = 0, next_attempt_at = ${now},
          updated_at = ${now}
        WHERE tenant_id = ${tenantId} AND webhook_id = ${webhookId} AND delivery_id = ${deliveryId}
          AND status IN ('succeeded', 'failed')
        RETURNING ${deliverySelect}`.pipe(
        Effect.tap((rows) => rows.length > 0 ? Effect.asVoid(wakeEverywhere) : Effect.void),
        Effect.flatMap(deliveries.decodeFirst("DeliveryStore.restart")),
        failAs("DeliveryStore.restart")
      )
    },
    restartFailed: (tenantId, webhookId, range, now) => {
      if (!isId(tenantId) || !isId(webhookId)) return Effect.succeed(0)
      return sql`UPDATE webhook_deliveries SET status = 'pending', failures = 0, next_attempt_at = ${now},
          updated_at = ${now}
        WHERE tenant_id = ${tenantId} AND webhook_id = ${webhookId} AND status = 'failed'
          AND created_at >= ${range.from} AND created_at < ${range.to}
        RETURNING 1`.pipe(
        Effect.tap((rows) => rows.length > 0 ? Effect.asVoid(wakeEverywhere) : Effect.void),
        Effect.map((rows) => rows.length),
        failAs("DeliveryStore.restartFailed")
      )
    },
    failUnfinished: (tenantId, webhookId, now) => {
      if (!isId(tenantId) || !isId(webhookId)) return Effect.succeed(0)
      return failUnfinished(tenantId, webhookId, now).pipe(failAs("DeliveryStore.failUnfinished"))
    },
    claim: (request) =>
      Effect.gen(function*() {
        const lease = yield* Ids.uuidv7
        const leaseUntil = new Date(request.now.getTime() + request.leaseMillis)
        // Candidates are locked (skipping rows other workers hold), at most `perWebhook` of each webhook
        // are leased; the rest stay unlocked for the next claim, here or elsewhere.
        const rows = yield* sql`WITH candidates AS (
            SELECT d.delivery_id, d.webhook_id, d.next_attempt_at FROM webhook_deliveries d
            JOIN webhooks w ON w.webhook_id = d.webhook_id AND w.enabled
            WHERE d.next_attempt_at <= ${request.now}
              AND (d.lease_until IS NULL OR d.lease_until <= ${request.now})
              AND NOT (d.webhook_id = ANY (${request.exclude}::uuid[]))
            ORDER BY d.next_attempt_at
            LIMIT ${request.limit * 4}
            FOR UPDATE OF d SKIP LOCKED
          ), chosen AS (
            SELECT delivery_id FROM (
              SELECT delivery_id, next_attempt_at,
                row_number() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at) AS n
              FROM candidates
            ) ranked WHERE n <= ${request.perWebhook} ORDER BY next_attempt_at LIMIT ${request.limit}
          ), leased AS (
            UPDATE webhook_deliveries d SET lease = ${lease}, lease_until = ${leaseUntil}
            FROM chosen WHERE d.delivery_id = chosen.delivery_id
            RETURNING d.delivery_id, d.tenant_id, d.webhook_id, d.body, d.status, d.attempts, d.failures,
              d.next_attempt_at, d.created_at, d.updated_at
          )
          SELECT leased.*, row_to_json(w.*) AS webhook FROM leased JOIN webhooks w ON w.webhook_id = leased.webhook_id
          ORDER BY leased.next_attempt_at`.pipe(Effect.flatMap(claims.decodeAll("DeliveryStore.claim")))
        return rows.map((row): DeliveryStore.Claim => ({
          delivery: toDelivery(row),
          webhook: toWebhook(row.webhook),
          body: row.body.text,
          lease
        }))
      }).pipe(failAs("DeliveryStore.claim")),
    nextDue: (exclude) =>
      sql`SELECT min(greatest(d.next_attempt_at, coalesce(d.lease_until, d.next_attempt_at))) AS due
        FROM webhook_deliveries d JOIN webhooks w ON w.webhook_id = d.webhook_id AND w.enabled
        WHERE d.next_attempt_at IS NOT NULL AND NOT (d.webhook_id = ANY (${exclude}::uuid[]))`.pipe(
        Rows.earliest("DeliveryStore.nextDue")
      ),
    settle: (claim, s, now) =>
      s.disableWebhook === undefined
        ? Effect.flatMap(Effect.serviceOption(sql.transactionService), (transaction) =>
          // Inside a caller's transaction the write joins it; otherwise it shares a batch with other workers' writes.
          Option.isSome(transaction)
            ? Effect.map(settleRows([{ claim, s, now }]), ([settled]) => settled)
            : settleBatched({ claim, s, now })).pipe(failAs("DeliveryStore.settle"))
        // A gone receiver: the delivery, the webhook and its other deliveries change together.
        : Effect.gen(function*() {
          const [settled] = yield* settleRows([{ claim, s, now }])
          if (!settled) return false
          const disabled = yield* sql`UPDATE webhooks SET enabled = false, disabled_reason = ${s.disableWebhook},
              updated_at = ${now}
            WHERE webhook_id = ${claim.webhook.webhook_id} AND enabled RETURNING 1`
          if (disabled.length > 0) yield* failUnfinished(claim.webhook.tenant_id, claim.webhook.webhook_id, now)
          return true
        }).pipe(sql.withTransaction, failAs("DeliveryStore.settle")),
    purgeFinished: (before) =>
      sql`WITH purged AS (
          DELETE FROM webhook_deliveries WHERE next_attempt_at IS NULL AND updated_at < ${before} RETURNING 1
        ) SELECT count(*) AS count FROM purged`.pipe(Rows.count("DeliveryStore.purgeFinished")),
    wakeups: Effect.gen(function*() {
      const here = Stream.fromSubscription(yield* PubSub.subscribe(local))
      const remote = yield* listen(wakeupChannel, "webhook deliveries")
      return Option.match(remote, { onNone: () => here, onSome: (others) => Stream.merge(here, Stream.as(others, undefined)) })
    })
  })
  return { webhookStore, deliveryStore }
})
