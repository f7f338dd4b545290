/**
 * The event catalog (decision 0010) and the envelope every event travels in
 * (decision 0010). The spec names the types and leaves their `data` open; the
 * shapes here are ours (decision 0010), each a Schema, so deliveries are
 * checked before they leave and the catalog is published as JSON Schema.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Schema } from "effect"
import { uuidv7 } from "../platform/Ids.ts"

/** An identifier as the API writes it. */
const Id = Schema.String.check(Schema.isMinLength(1))
/** An instant as the API writes it: ISO 8601 UTC with milliseconds. */
const Instant = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, { message: "Expected ISO 8601 UTC with milliseconds" })
)
/** Who did something (the audit log's actors: `grant` is a share's visitor, in `audit.event` only). */
const Actor = Schema.Struct({ type: Schema.Literals(["user", "api_token", "scim", "system", "grant"]), id: Id })
/** Why something failed: a problem code and words. */
const Failure = Schema.Struct({ code: Schema.String, message: Schema.String })
/** What a grant is on and to whom. */
const Grant = {
  grant_id: Id,
  subject_type: Schema.Literals(["report", "dashboard", "dataset", "workspace"]),
  subject_id: Id,
  principal_type: Schema.Literals(["user", "team", "executive_role", "link", "embed"]),
  principal_id: Schema.NullOr(Id)
}

/** Each event type's `data`. */
export const catalog = {
  "alert.fire": Schema.Struct({ alert_id: Id, name: Schema.String, value: Schema.Number, threshold: Schema.Number }),
  "alert.resolve": Schema.Struct({ alert_id: Id, name: Schema.String, value: Schema.Number, threshold: Schema.Number }),
  // Identifiers only, never a URL that works without credentials: a receiver fetches the file with
  // its own token (`GET /v1/jobs/{job_id}/result`), as the policy lets that token (decision 0018).
  "export.succeeded": Schema.Struct({
    job_id: Id,
    report_id: Id,
    format: Schema.String,
    filename: Schema.String,
    content_type: Schema.String,
    bytes: Schema.Int
  }),
  "export.failed": Schema.Struct({ job_id: Id, report_id: Id, format: Schema.String, error: Failure }),
  "dataset.refresh.started": Schema.Struct({ dataset_id: Id, refresh_id: Id }),
  "dataset.refresh.succeeded": Schema.Struct({ dataset_id: Id, refresh_id: Id, row_count: Schema.Int, duration_ms: Schema.Int }),
  "dataset.refresh.failed": Schema.Struct({ dataset_id: Id, refresh_id: Id, error: Failure }),
  "sharing.grant.created": Schema.Struct({
    ...Grant,
    actions: Schema.Array(Schema.Literals(["view", "download", "comment", "edit", "share"])),
    watermark: Schema.Boolean,
    expires_at: Schema.NullOr(Instant),
    actor: Actor
  }),
  "sharing.grant.revoked": Schema.Struct({ ...Grant, actor: Actor }),
  "scim.user.provisioned": Schema.Struct({ user_id: Id, user_name: Schema.String, email: Schema.String, external_id: Schema.NullOr(Schema.String) }),
  "scim.user.deprovisioned": Schema.Struct({ user_id: Id, user_name: Schema.String, email: Schema.String }),
  // The firehose (Scale plan, opt-in): one audit log entry.
  "audit.event": Schema.Struct({
    action: Schema.String,
    actor: Actor,
    target: Schema.Struct({ type: Schema.String, id: Id }),
    detail: Schema.Record(Schema.String, Schema.Unknown)
  })
} as const

/** An event type of the catalog. */
export type EventType = keyof typeof catalog
/** Every event type, in the contract's order. */
export const eventTypes = Object.keys(catalog) as ReadonlyArray<EventType>
/** An event type of the catalog, as a Schema (webhook subscriptions name these). */
export const EventType = Schema.Literals(eventTypes as [EventType, ...Array<EventType>])

/** The `data` of an event type. */
export type Data<T extends EventType> = (typeof catalog)[T]["Type"]

/**
 * The `workspace_id` of an event that concerns the tenant, not one
 * workspace: `"*"`, every workspace of the tenant. The envelope's
 * `workspace_id` is always a string (decision 0010).
 */
export const everyWorkspace = "*"

/**
 * The types whose events concern the tenant, not one workspace: their
 * `workspace_id` is `"*"` (`everyWorkspace`, decision 0012). The firehose
 * carries either.
 */
export const tenantWide: ReadonlySet<EventType> = new Set(["scim.user.provisioned", "scim.user.deprovisioned"])

/** A workspace's id: any identifier but `"*"`. */
const WorkspaceId = Id.check(Schema.makeFilter((s: string) => s !== everyWorkspace, { expected: "a workspace id, not \"*\"" }))

/** The envelope's `workspace_id` for a type: a workspace, `"*"` for tenant-wide types, either for the firehose. */
const workspaceOf = (type: EventType) =>
  tenantWide.has(type)
    ? Schema.Literal(everyWorkspace).annotate({ description: "\"*\": the event concerns the tenant, every workspace of it" })
    : type === "audit.event"
    ? Id.annotate({ description: "The workspace, or \"*\" (every workspace of the tenant) for a tenant-wide entry" })
    : WorkspaceId.annotate({ description: "The workspace the event concerns" })

/** The envelope of one event type (decision 0010). */
export const envelopeOf = <T extends EventType>(type: T) =>
  Schema.Struct({
    id: Id,
    type: Schema.Literal(type),
    created_at: Instant,
    workspace_id: workspaceOf(type) as Schema.Codec<string>,
    data: catalog[type] as (typeof catalog)[T]
  })

/** An event as delivered. */
export interface Envelope<T extends EventType = EventType> {
  readonly id: string
  readonly type: T
  readonly created_at: string
  /** The workspace, or `"*"` (`everyWorkspace`) for tenant-wide events (`tenantWide`). */
  readonly workspace_id: string
  readonly data: Data<T>
}

/** Any event of the catalog, told apart by `type`. */
export const Envelope = Schema.Union(eventTypes.map(envelopeOf))

/** Each type's envelope decoder, built once (building a schema per event costs more than checking it). */
const decoders = Object.fromEntries(
  eventTypes.map((type) => [type, Schema.decodeUnknownEffect(envelopeOf(type))])
) as { readonly [T in EventType]: (input: unknown) => Effect.Effect<unknown, Schema.SchemaError> }

/**
 * An event as it is delivered, from its parts, unchecked: for a payload
 * whose every field is typed where it is built (the firehose's
 * `audit.event`, made of an audit entry). `make` checks what callers send.
 */
export const envelope = <T extends EventType>(
  type: T,
  id: string,
  createdAt: Date,
  workspaceId: string,
  data: Data<T>
): Envelope<T> => ({ id, type, created_at: createdAt.toISOString(), workspace_id: workspaceId, data })

/**
 * A new event: a fresh time-ordered id, now as its time. The `data` is
 * checked against its type's schema, and `workspaceId` against the type:
 * a workspace's id, or `everyWorkspace` for tenant-wide types.
 */
export const make = <T extends EventType>(
  type: T,
  workspaceId: string,
  data: Data<T>
): Effect.Effect<Envelope<T>, Schema.SchemaError> =>
  Effect.gen(function*() {
    const made = envelope(type, yield* uuidv7, new Date(yield* Clock.currentTimeMillis), workspaceId, data)
    return (yield* decoders[type](made)) as Envelope<T>
  })

/** One type's envelope as a JSON Schema document. */
export type JsonSchemaDocument = ReturnType<typeof Schema.toJsonSchemaDocument>

let documents: Record<EventType, JsonSchemaDocument> | undefined

/** The catalog as JSON Schema (draft 2020-12), one envelope document per type, for the docs and the API; built once. */
export const jsonSchemas = (): Record<EventType, JsonSchemaDocument> =>
  documents ??= Object.fromEntries(
    eventTypes.map((type) => [type, Schema.toJsonSchemaDocument(envelopeOf(type))])
  ) as Record<EventType, JsonSchemaDocument>

const exampleId = "0194f0a2-7c4e-7b3a-9f1e-2d8c6b5a4f30"
const exampleActor = { type: "user", id: "user_0194f0a27c4e" } as const

/** An example `data` per type: what a webhook's test send delivers (Svix's send-example, GitHub's ping). */
export const examples: { readonly [T in EventType]: Data<T> } = {
  "alert.fire": { alert_id: exampleId, name: "Revenue below plan", value: 81_250.5, threshold: 90_000 },
  "alert.resolve": { alert_id: exampleId, name: "Revenue below plan", value: 93_400, threshold: 90_000 },
  "export.succeeded": {
    job_id: exampleId,
    report_id: exampleId,
    format: "pdf",
    filename: "Sales overview.pdf",
    content_type: "application/pdf",
    bytes: 184_320
  },
  "export.failed": {
    job_id: exampleId,
    report_id: exampleId,
    format: "xlsx",
    error: { code: "export/render-failed", message: "The report's query timed out" }
  },
  "dataset.refresh.started": { dataset_id: exampleId, refresh_id: exampleId },
  "dataset.refresh.succeeded": { dataset_id: exampleId, refresh_id: exampleId, row_count: 1_204_551, duration_ms: 8_412 },
  "dataset.refresh.failed": {
    dataset_id: exampleId,
    refresh_id: exampleId,
    error: { code: "dataset/source-unreachable", message: "The warehouse refused the connection" }
  },
  "sharing.grant.created": {
    grant_id: exampleId,
    subject_type: "report",
    subject_id: exampleId,
    principal_type: "link",
    principal_id: null,
    actions: ["view", "download"],
    watermark: true,
    expires_at: "2026-02-01T00:00:00.000Z",
    actor: exampleActor
  },
  "sharing.grant.revoked": {
    grant_id: exampleId,
    subject_type: "report",
    subject_id: exampleId,
    principal_type: "link",
    principal_id: null,
    actor: exampleActor
  },
  "scim.user.provisioned": { user_id: exampleId, user_name: "ada", email: "ada@example.com", external_id: "00u1abc" },
  "scim.user.deprovisioned": { user_id: exampleId, user_name: "ada", email: "ada@example.com" },
  "audit.event": {
    action: "sharing.grant.created",
    actor: exampleActor,
    target: { type: "grant", id: exampleId },
    detail: { subject_type: "report" }
  }
}
