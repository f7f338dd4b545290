/**
 * The OpenAPI document and the server agree on every bound of every request
 * body: for each `minLength`/`maxLength` (strings, counted in code points as
 * JSON Schema counts them), `minItems`/`maxItems` (arrays) and
 * `minimum`/`maximum` (numbers) the document declares, a body whose field
 * sits exactly on the bound is not refused for that field, and one past it
 * is a 400 naming the field. Bodies are the fixture's valid ones
 * (`TenantFixture.addresses`) and a few more that reach optional fields, sent
 * over a real socket to the whole service on the in-memory stores.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { operatorToken } from "@analytics/testing/http"
import {
  addresses,
  arrange,
  fill,
  type FixtureTenant,
  hasPath,
  type Operation,
  operations,
  paramsOf,
  queryOf,
  resolve,
  serve,
  setAt
} from "./TenantFixture.ts"

// ---------------------------------------------------------------------------
// the bounds the document declares

/** One bound of one body field. */
interface Bound {
  /** Dotted, `[]` for every item of an array (`pages[].visuals[].title`). */
  readonly path: string
  readonly kind: "string" | "array" | "number"
  readonly keyword: "minLength" | "maxLength" | "minItems" | "maxItems" | "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum"
  readonly value: number
  readonly integer: boolean
  /** The field's schema (for a string's pattern, format or enum). */
  readonly schema: any
}

const keywords = {
  string: ["minLength", "maxLength"],
  array: ["minItems", "maxItems"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
} as const

/** Every bound under `schema`, alternatives (`anyOf`, `oneOf`, `allOf`) included; recursion stops at `maxDepth` nested paths. */
const boundsOf = (schema: any, path = "", depth = 0, out: Array<Bound> = []): Array<Bound> => {
  const s = resolve(schema)
  if (s === undefined || depth > 12) return out
  const kind = s.type === "string" ? "string" : s.type === "array" ? "array" : s.type === "integer" || s.type === "number" ? "number" : undefined
  if (kind !== undefined && path !== "") {
    for (const keyword of keywords[kind]) {
      if (typeof s[keyword] === "number") out.push({ path, kind, keyword, value: s[keyword], integer: s.type === "integer", schema: s })
    }
  }
  for (const alternative of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) boundsOf(alternative, path, depth + 1, out)
  if (s.items !== undefined) boundsOf(s.items, `${path}[]`, depth + 1, out)
  for (const [name, sub] of Object.entries<any>(s.properties ?? {})) boundsOf(sub, path === "" ? name : `${path}.${name}`, depth + 1, out)
  return out
}

/** The bounds of an operation's body, each once. */
const operationBounds = (op: Operation): Array<Bound> => {
  const seen = new Set<string>()
  return boundsOf(op.bodySchema).filter((b) => {
    const key = `${b.path} ${b.keyword} ${b.value}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

// ---------------------------------------------------------------------------
// values on and past a bound

const parentOf = (path: string) => {
  const dot = path.lastIndexOf(".")
  return dot === -1 ? "" : path.slice(0, dot)
}

/** The value at a dotted path (the first item's, through arrays). */
const valueAt = (body: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((value, segment) => {
    const array = segment.endsWith("[]")
    const next = (value as Record<string, unknown> | undefined)?.[array ? segment.slice(0, -2) : segment]
    return array ? (next as Array<unknown> | undefined)?.[0] : next
  }, body)

/** A string of `length` code points that the field's pattern, format and enum allow, if one can be made. */
const stringOf = (schema: any, length: number, astral: boolean): string | undefined => {
  if (schema.enum !== undefined || length < 0) return undefined
  const unit = astral ? "\u{1F600}" : "a"
  let text: string
  if (schema.format === "email") {
    const domain = "@example.com"
    if (length < domain.length + 1) return undefined
    text = `${unit.repeat(length - domain.length)}${domain}`
  } else if (schema.format !== undefined) {
    return undefined
  } else {
    text = unit.repeat(length)
  }
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(text)) return undefined
  return text
}

/** An array of `length` items like the body's first (a fresh `id` and `name` each where items have them). */
const arrayOf = (body: unknown, path: string, length: number): Array<unknown> | undefined => {
  const items = valueAt(body, path) as Array<unknown> | undefined
  const model = Array.isArray(items) ? items[0] : undefined
  if (length < 0 || model === undefined) return undefined
  return Array.from({ length }, (_, i) => {
    if (typeof model !== "object" || model === null) return model
    const item = { ...model } as Record<string, unknown>
    for (const key of ["id", "name"]) if (typeof item[key] === "string") item[key] = `${item[key]}_${i}`
    return item
  })
}

/** The middle of the field's declared range: clearly inside every bound the document gives it. */
const middleOf = (bound: Bound): number => {
  const [low, high] = bound.kind === "string"
    ? [bound.schema.minLength, bound.schema.maxLength]
    : bound.kind === "array"
    ? [bound.schema.minItems, bound.schema.maxItems]
    : [bound.schema.minimum ?? bound.schema.exclusiveMinimum, bound.schema.maximum ?? bound.schema.exclusiveMaximum]
  const middle = low !== undefined && high !== undefined
    ? (low + high) / 2
    : low !== undefined
    ? low + Math.max(1, Math.abs(low))
    : high / 2
  return bound.kind === "number" && !bound.integer ? middle : Math.floor(middle)
}

/**
 * A value on the bound (`step` 0), one past it (`step` 1), or in the middle
 * of the field's declared range (`step` -1), when one can be made.
 */
const valueFor = (bound: Bound, body: unknown, step: -1 | 0 | 1, astral = false): unknown => {
  if (step === -1) {
    const middle = middleOf(bound)
    return bound.kind === "string" ? stringOf(bound.schema, middle, astral) : bound.kind === "array" ? arrayOf(body, bound.path, middle) : middle
  }
  const past = step === 1
  const half = bound.integer ? 1 : 0.5
  switch (bound.keyword) {
    case "minLength":
      return stringOf(bound.schema, bound.value - step, astral)
    case "maxLength":
      return stringOf(bound.schema, bound.value + step, astral)
    case "minItems":
      return arrayOf(body, bound.path, bound.value - step)
    case "maxItems":
      return arrayOf(body, bound.path, bound.value + step)
    case "minimum":
      return bound.value - step * half
    case "maximum":
      return bound.value + step * half
    case "exclusiveMinimum":
      return past ? bound.value : bound.value + half
    case "exclusiveMaximum":
      return past ? bound.value : bound.value - half
  }
}

// ---------------------------------------------------------------------------
// what an answer says about a field

interface Answer {
  readonly status: number
  readonly body: any
  readonly text: string
}

/** The field's path as a problem's `errors[].path` gives it, without `payload` and item indices. */
const keysOf = (path: string) => path.split(".").map((segment) => segment.replace(/\[\]$/, ""))

/** Whether a problem's `errors` point at the field (or inside it). */
const errorsName = (answer: Answer, path: string): boolean => {
  const keys = keysOf(path)
  return (answer.body?.errors ?? []).some((error: { path?: Array<string | number> }) => {
    const errorKeys = (error.path ?? []).slice(1).filter((key) => typeof key === "string")
    return errorKeys.length >= keys.length && keys.every((key, i) => errorKeys[i] === key)
  })
}

/** Whether an answer refuses the request because of the field: a 4xx naming it (its path in `errors`, or its name in the detail). */
const refusesField = (answer: Answer, path: string): boolean => {
  if (answer.status < 400 || answer.status >= 500) return false
  const keys = keysOf(path)
  const last = keys[keys.length - 1]!
  return errorsName(answer, path) || new RegExp(`\\b${last}\\b`).test(String(answer.body?.detail ?? ""))
}

// ---------------------------------------------------------------------------
// bodies that reach optional fields the fixture's valid bodies leave out

const regionIs = (value: unknown) => ({ member: "region", operator: "equals", values: [value] })

/**
 * Filters of each kind, one kind a list (a field of every item is set at
 * once): a condition, `and`, `or` (one level: deeper levels are the same
 * schema).
 */
const filterKinds = (value: unknown = "EU") => [[regionIs(value)], [{ and: [regionIs(value)] }], [{ or: [regionIs(value)] }]]
const filters = filterKinds()[0]!

/** One body per kind of filter. */
const perFilterKind = (body: (filters: ReadonlyArray<unknown>) => unknown) => filterKinds().map(body)

/** A query that reaches every field: dimensions, a time dimension with a range (two dates first, then words), filters, order. */
const queries = [
  {
    measures: ["total_amount"],
    dimensions: ["region"],
    time_dimensions: [{ dimension: "region", date_range: ["2024-01-01", "2024-12-31"] }],
    filters,
    order: [{ member: "total_amount", direction: "desc" }]
  },
  { measures: ["total_amount"], time_dimensions: [{ dimension: "region", date_range: "last 3 months" }] },
  ...filterKinds().slice(1).map((filters) => ({ measures: ["total_amount"], filters }))
]

const visualOf = (t: FixtureTenant, query: object = queries[0]!) => ({
  id: t.visualId,
  type: "bar",
  title: "By region",
  dataset_id: t.ids.dataset,
  query,
  encoding: { x: "region", y: ["total_amount"], series: "region" }
})

const tableOf = (t: FixtureTenant) => ({
  id: "as_table",
  type: "table",
  dataset_id: t.ids.dataset,
  query: { measures: ["total_amount"], dimensions: ["region"] },
  encoding: { columns: ["region", "total_amount"] }
})

/** A report's fields beyond its pages: description, filters, settings. */
const reportExtras = { description: "Board", filters: [{ name: "region", dimension: "region", title: "Region" }], settings: { query_timeout_seconds: 30 } }

/** The fixture dataset's model with a measure format, and with row-level security filters of each kind (one model each). */
const modelsWith = (model: any) =>
  filterKinds({ attribute: "region" }).map(([filter]) => ({
    ...model,
    measures: model.measures.map((m: any, i: number) => (i === 0 ? { ...m, format: { type: "number", decimals: 2 } } : m)),
    row_level_security: [{ roles: ["member"], filter }]
  }))

/** More valid bodies per operation, each reaching fields the fixture's leave out. */
const moreBodies: Readonly<Record<string, (t: FixtureTenant, model: any) => ReadonlyArray<unknown>>> = {
  "tenants.create": () => [{ name: "Custom", plan: "custom", limits: { burst: 60, sustained: 2000, query_concurrency: 4 } }],
  "tenants.changePlan": () => [{ plan: "custom", limits: { burst: 60, sustained: 2000, query_concurrency: 4 } }],
  "workspaces.create": () => [{ name: "Described", description: "Sales" }],
  "webhooks.create": () => [{ url: "https://hooks.example.com/more", events: ["export.succeeded"], secret: "s".repeat(32), description: "Ops" }],
  "webhooks.update": () => [{ events: ["export.succeeded"], description: "Ops" }],
  "webhooks.rotateSecret": () => [{ secret: "s".repeat(32) }],
  "users.create": () => [{ email: "more@example.com", name: "More", roles: ["member"] }],
  "users.update": () => [{ roles: ["member"] }],
  "invitations.create": () => [{ email: "more-invitee@example.com", name: "Invitee" }],
  "datasets.create": (t, model) => [
    ...modelsWith(model).map((m) => ({ workspace_id: t.ids.workspace, name: "Described", description: "Orders", source: { type: "upload" }, model: m, refresh_cron: "0 * * * *" })),
    { workspace_id: t.ids.workspace, name: "Table", source: { type: "postgres", schema: "public", table: "orders" } }
  ],
  "datasets.update": (_, model) => modelsWith(model).map((m) => ({ name: "Orders", description: "Orders", model: m, refresh_cron: "0 * * * *" })),
  "datasets.query": () => queries,
  "datasets.sql": () => queries,
  "reports.create": (t) => [
    { workspace_id: t.ids.workspace, name: "Described", ...reportExtras, pages: [{ name: "One", visuals: [visualOf(t)] }] },
    { workspace_id: t.ids.workspace, name: "Ranged", pages: [{ name: "One", visuals: [visualOf(t, queries[1])] }] },
    { workspace_id: t.ids.workspace, name: "Tabled", pages: [{ name: "One", visuals: [tableOf(t)] }] },
    ...queries.slice(2).map((query) => ({ workspace_id: t.ids.workspace, name: "Filtered", pages: [{ name: "One", visuals: [visualOf(t, query)] }] }))
  ],
  "reports.update": (t) => [
    { ...reportExtras, pages: [{ name: "One", visuals: [visualOf(t)] }] },
    { pages: [{ name: "One", visuals: [visualOf(t, queries[1])] }] },
    { pages: [{ name: "One", visuals: [tableOf(t)] }] },
    ...queries.slice(2).map((query) => ({ pages: [{ name: "One", visuals: [visualOf(t, query)] }] }))
  ],
  "reports.visualData": () => perFilterKind((filters) => ({ filters })),
  "alerts.create": (t) =>
    perFilterKind((filters) => ({
      dataset_id: t.ids.dataset,
      name: "Filtered",
      measure: "total_amount",
      condition: "lt",
      threshold: 1,
      filters,
      schedule: { after_refresh: true, cron: "0 * * * *" }
    })),
  "alerts.update": () => perFilterKind((filters) => ({ filters, schedule: { after_refresh: true, cron: "0 * * * *" } })),
  "sharing.create": (t) => [
    { subject_type: "report", subject_id: t.ids.report, principal_type: "link", actions: ["view"], password: "a long password" },
    { subject_type: "report", subject_id: t.ids.report, principal_type: "user", principal_id: t.ids.user, actions: ["view"] }
  ],
  "sharing.update": () => [{ password: "a long password", actions: ["view"] }],
  "sharing.embedToken": () => [{ lifetime_seconds: 60, params: { region: "EU" }, attributes: { region: "EU" } }],
  "exports.export": (t) => [{ format: "pdf", pages: ["Overview"] }, ...perFilterKind((filters) => ({ format: "csv", visual_id: t.visualId, filters }))],
  "exportSchedules.create": (t) => [
    { report_id: t.ids.report, name: "Paged", cron: "0 9 * * *", timezone: "UTC", format: "xlsx", pages: ["Overview"], recipients: [t.memberEmail] },
    ...perFilterKind((filters) => ({
      report_id: t.ids.report,
      name: "Filtered",
      cron: "0 9 * * *",
      timezone: "UTC",
      format: "csv",
      visual_id: t.visualId,
      filters,
      recipients: [t.memberEmail]
    }))
  ],
  "exportSchedules.update": (t) => [
    { format: "xlsx", pages: ["Overview"] },
    ...perFilterKind((filters) => ({ name: "Weekly", cron: "0 8 * * 1", timezone: "UTC", format: "csv", visual_id: t.visualId, filters }))
  ],
  "ai.ask": (t) => [{
    question: "What is the total amount by region?",
    dataset_id: t.ids.dataset,
    context: [{ role: "user", content: "Hello" }]
  }]
}

// ---------------------------------------------------------------------------

describe("the OpenAPI document's request-body bounds", () => {
  it.live("every string, array and number bound of every body: the bound is not refused for its field, one past it is a 400 naming it", () =>
    Effect.gen(function*() {
      const fixture = yield* serve(MemoryStores.layer)
      const { server } = fixture
      const t = yield* arrange(fixture, "limits")
      const model = (yield* server.request("GET", `/v1/datasets/${t.ids.dataset}`, { token: t.admin })).body.model
      const disagreements: Array<string> = []
      const unreached: Array<string> = []
      let probed = 0
      // Destructive operations last, so that every other one still finds what it names.
      const ordered = [...operations].sort((a, b) => Number(addresses[a.id]?.destructive === true) - Number(addresses[b.id]?.destructive === true))
      for (const op of ordered) {
        const address = addresses[op.id]
        if (op.bodySchema === undefined || address?.body === undefined) continue
        const bodies = [address.body(t), ...(moreBodies[op.id]?.(t, model) ?? [])]
        const token = address.operatorOnly === true ? operatorToken : t.admin
        const url = `${fill(op.path, paramsOf(t, op))}${queryOf(t, op)}`
        const send = (body: unknown) =>
          Effect.map(server.request(op.method, url, { token, body, headers: { "idempotency-key": crypto.randomUUID() } }), (r) => ({
            status: r.status,
            body: r.body,
            text: r.text
          }))
        for (const bound of operationBounds(op)) {
          const where = `${op.id} ${bound.path} ${bound.keyword}=${bound.value}`
          // A body that has the field, else one that has where it goes (an array field needs an item to change).
          const container = bound.path.endsWith("[]") ? bound.path : parentOf(bound.path)
          const body = bodies.find((b) => hasPath(b, bound.path)) ??
            bodies.find((b) => container === "" || hasPath(b, container))
          // Strings are also probed in characters outside the BMP: JSON Schema counts code points, not UTF-16 units.
          const variants: Array<boolean> = bound.kind === "string" ? [false, true] : [false]
          let reached = false
          for (const astral of variants) {
            if (body === undefined) break
            const on = valueFor(bound, body, 0, astral)
            const past = valueFor(bound, body, 1, astral)
            if (on === undefined || past === undefined) continue
            reached = true
            probed++
            const label = `${where}${astral ? " (astral)" : ""}`
            const onBound = yield* send(setAt(body, bound.path, on))
            // A value in the middle of the declared range, made the same way, tells a refusal of the content (a visual
            // "aaaa" that does not exist, a duplicate) from a refusal of the bound: only the latter is a disagreement.
            const inside = valueFor(bound, body, -1, astral)
            const insideBound = inside === undefined ? undefined : yield* send(setAt(body, bound.path, inside))
            const contentRefused = insideBound !== undefined && refusesField(insideBound, bound.path) && insideBound.body?.code === onBound.body?.code
            if (refusesField(onBound, bound.path) && !contentRefused) {
              disagreements.push(`${label}: on the bound, refused ${onBound.status}: ${onBound.text.slice(0, 300)}`)
            }
            const pastBound = yield* send(setAt(body, bound.path, past))
            // Past the bound: a 400 naming the field; where the content is refused anyway, the schema's own error at the field.
            const refusedPast = pastBound.status === 400 &&
              (contentRefused ? pastBound.body?.code === "request/invalid" && errorsName(pastBound, bound.path) : refusesField(pastBound, bound.path))
            if (!refusedPast) disagreements.push(`${label}: past the bound, answered ${pastBound.status}: ${pastBound.text.slice(0, 300)}`)
          }
          if (!reached) unreached.push(where)
        }
      }
      assert.deepStrictEqual(disagreements, [], `\n${disagreements.join("\n")}`)
      // Every bound is reached but those of filters nested two levels deep, the same schema as the levels above.
      assert.deepStrictEqual(unreached.filter((where) => !/\b(and|or)\[\]\.(and|or)\b/.test(where)), [], "add a body to moreBodies that reaches them")
      assert.isAbove(probed, 500)
    }).pipe(Effect.scoped), 600_000)
})
