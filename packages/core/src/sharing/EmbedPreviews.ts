/**
 * What an embed of a report would show before it is handed out (decision
 * 0014, "Embeds in the console"): each visual run as the embed's viewer
 * (the role `embed` with the attributes given, the locked filters, at most
 * a delegate's own rows), how many rows it shows, and, when row-level
 * security or the locked values leave it none, a warning in words with
 * the fix. The share dialog asks it as its fields change; it also offers
 * the filters one may lock (with the values the maker sees) and the
 * attributes the report's policies for embeds read.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import type { Member } from "../auth/Principal.ts"
import type { Dataset } from "../datasets/Dataset.ts"
import * as Datasets from "../datasets/Datasets.ts"
import * as SemanticModel from "../datasets/SemanticModel.ts"
import type { SecurityContext } from "../datasets/SemanticQuery.ts"
import { titleOf } from "../datasets/SemanticQuery.ts"
import type { Forbidden, NotFound, StoreError } from "../platform/Errors.ts"
import { UuidAnyCase } from "../platform/Ids.ts"
import * as ReportViews from "../reports/ReportViews.ts"
import * as Reports from "../reports/Reports.ts"
import { GrantInvalid, type ShareExpired } from "./Grants.ts"
import * as LockedFilters from "./LockedFilters.ts"
import * as Policy from "./Policy.ts"
import * as ShareTokens from "./ShareTokens.ts"
import type { GrantStore } from "./GrantStore.ts"
import type * as Subjects from "./Subjects.ts"

/** What the share dialog asks of a preview. */
export const PreviewRequest = Schema.Struct({
  subject_type: Schema.Literals(["report"]).annotate({ description: "What the embed would share; previews are of reports" }),
  subject_id: UuidAnyCase,
  params: Schema.optionalKey(ShareTokens.LockedParams.annotate({ description: "The locked filters the embed token would carry" })),
  attributes: Schema.optionalKey(ShareTokens.ViewerAttributes.annotate({
    description: "The viewer's attributes the token would carry (`email`, and what row-level security reads)"
  }))
})
/** What the share dialog asks of a preview. */
export type PreviewRequest = typeof PreviewRequest.Type

/** One visual as the embed's viewer would see it. */
export interface VisualPreview {
  readonly visual_id: string
  readonly title: string | null
  readonly page: string
  /** `rows`: it shows rows; `no_rows`: its query matches none; `hidden`: row-level security leaves none; `unavailable`: it cannot be shown. */
  readonly state: "rows" | "no_rows" | "hidden" | "unavailable"
  /** How many rows it would show (at most its query's limit). */
  readonly rows: number
}

/** Why the embed would show nothing somewhere, and what to do. */
export interface Warning {
  readonly kind: "attribute_missing" | "no_policy" | "no_rows"
  /** The dataset whose policies it is about, when it is about one. */
  readonly dataset_id: string | null
  /** The problem and its fix, in words. */
  readonly detail: string
}

/** A filter of the report an embed may lock, with the values to choose from. */
export interface LockableFilter {
  readonly name: string
  readonly title: string
  readonly dimension: string
  /** A choice among `options`; a date range cannot be locked to one value. */
  readonly kind: "choice" | "range"
  readonly options: ReadonlyArray<string | number | boolean>
}

/** An attribute the report's policies for embeds read, and the values its dimension has (when it is compared with one). */
export interface AttributeRead {
  readonly name: string
  readonly title: string
  readonly options: ReadonlyArray<string | number | boolean>
}

/** The preview. */
export interface Preview {
  readonly visuals: ReadonlyArray<VisualPreview>
  readonly warnings: ReadonlyArray<Warning>
  readonly filters: ReadonlyArray<LockableFilter>
  readonly attributes: ReadonlyArray<AttributeRead>
}

/** What a preview reads. */
export type Services = ReportViews.Services | LockedFilters.Services | GrantStore | Subjects.Services

/** The most values an attribute's choice offers. */
const attributeOptions = 200

/** The policies of a model that reach an embed's viewer (the role `embed`, or everyone). */
const embedPolicies = (dataset: Dataset) =>
  (dataset.model.row_level_security ?? []).filter((p) => p.roles === undefined || p.roles.includes("embed"))

/** The attributes a policy reads, each with the dimension it is compared with. */
const attributesOf = (policy: SemanticModel.RowPolicy): ReadonlyArray<{ readonly name: string; readonly member: string }> =>
  policy.filter === undefined ? [] : SemanticModel.conditionsOf(policy.filter).flatMap((c) =>
    (c.values ?? []).flatMap((v) => typeof v === "object" && v !== null && "attribute" in v ? [{ name: v.attribute, member: c.member }] : [])
  )

/** `a`, `a` and `b`, `a`, `b` and `c`. */
const listed = (items: ReadonlyArray<string>) =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`

/**
 * Why row-level security leaves an embed none of a dataset's rows, and
 * the fix: no policy reaches the role `embed`, or those that do read
 * attributes not given; otherwise their values match no row (or, for a
 * delegate's embed, none of their own rows).
 */
const hiddenWarning = (dataset: Dataset, attributes: ShareTokens.ViewerAttributes, delegate: boolean): Warning => {
  const policies = embedPolicies(dataset)
  if (policies.length === 0) {
    return {
      kind: "no_policy",
      dataset_id: dataset.dataset_id,
      detail: `Row-level security on ${dataset.name} has no policy for embeds (the role \`embed\`), so an embed shows none of its rows; ` +
        "ask an admin to add one to the dataset's model"
    }
  }
  const missing = [...new Set(policies.flatMap(attributesOf).map((a) => a.name).filter((name) => attributes[name] === undefined))]
  if (missing.length > 0) {
    return {
      kind: "attribute_missing",
      dataset_id: dataset.dataset_id,
      detail: `Row-level security on ${dataset.name} reads the attribute${missing.length > 1 ? "s" : ""} ${listed(missing.map((m) => `\`${m}\``))}; ` +
        `add ${missing.length > 1 ? "them" : "it"} under Who views it`
    }
  }
  return {
    kind: "attribute_missing",
    dataset_id: dataset.dataset_id,
    detail: delegate
      ? `Row-level security on ${dataset.name} leaves this embed none of its rows: the viewer's attributes match none of the rows you see; change them under Who views it`
      : `Row-level security on ${dataset.name} leaves this embed none of its rows: the viewer's attributes match none; change them under Who views it`
  }
}

/**
 * The preview of an embed of a report by `maker` (who must hold `share`
 * on it): its visuals as the viewer would see them, the warnings, the
 * filters to lock and the attributes to give. A locked value the data does
 * not have is refused as the embed token would refuse it (`GrantInvalid`).
 */
export const preview = (
  maker: Member,
  request: PreviewRequest
): Effect.Effect<Preview, NotFound | Forbidden | ShareExpired | GrantInvalid | StoreError, Services> =>
  Effect.gen(function*() {
    yield* Policy.onSubject(maker, "sharing.embedPreview", request.subject_id)
    const report = yield* Reports.get(maker.tenantId, request.subject_id)
    const params = request.params ?? {}
    const attributes = request.attributes ?? {}
    const datasets = yield* Reports.datasetsOf(maker.tenantId, report.pages)
    const makers = yield* LockedFilters.makerSecurity(maker)
    const refused = yield* LockedFilters.refusal(maker.tenantId, datasets, params, makers)
    if (refused !== undefined) return yield* new GrantInvalid({ detail: refused })
    const delegate = !Policy.isAdmin(maker)
    // As the embed's viewer: the role `embed` and the token's attributes, at most a delegate's own rows.
    const security: SecurityContext = {
      roles: ["embed"],
      attributes,
      within: delegate ? yield* Datasets.securityContext(maker) : undefined
    }
    const locked = Object.entries(params).map(([member, value]) => ({ member, operator: "equals" as const, values: [value] }))
    const view = yield* ReportViews.render({ tenantId: maker.tenantId, reportId: report.report_id, security, filters: [], locked })
    const visuals = view.pages.flatMap((page) =>
      page.visuals.map((v): VisualPreview => {
        const base = { visual_id: v.visual.id, title: v.visual.title ?? null, page: page.name }
        if (v._tag === "Unavailable") return { ...base, state: v.detail === ReportViews.hiddenDetail ? "hidden" : "unavailable", rows: 0 }
        return { ...base, state: ReportViews.matchesNoRow(v) ? "no_rows" : "rows", rows: ReportViews.matchesNoRow(v) ? 0 : v.rows.length }
      })
    )
    const hiddenDatasets = new Set(
      view.pages.flatMap((p) => p.visuals).filter((v) => v._tag === "Unavailable" && v.detail === ReportViews.hiddenDetail).map((v) => v.visual.dataset_id)
    )
    const warnings: Array<Warning> = datasets.filter((d) => hiddenDatasets.has(d.dataset_id)).map((d) => hiddenWarning(d, attributes, delegate))
    const empty = visuals.filter((v) => v.state === "no_rows")
    if (empty.length > 0) {
      const names = empty.map((v) => v.title ?? v.visual_id)
      warnings.push({
        kind: "no_rows",
        dataset_id: null,
        detail: `${empty.length === visuals.length ? "Every visual" : listed(names.map((n) => `“${n}”`))} would show no rows with ` +
          `${Object.keys(params).length > 0 ? "these locked filters and " : ""}the viewer's attributes; ` +
          `${Object.keys(params).length > 0 ? "choose other locked values or " : ""}change the attributes under Who views it`
      })
    }
    // The filters to lock, with the values the maker sees (what the embed token may carry).
    const controls = yield* ReportViews.filterControls({ tenantId: maker.tenantId, reportId: report.report_id, security: makers })
    const filters = report.filters.flatMap((f): ReadonlyArray<LockableFilter> => {
      const control = controls.find((c) => c.name === f.name)
      return control === undefined ? [] : [{ name: f.name, title: control.title, dimension: f.dimension, kind: control.kind, options: control.options }]
    })
    // The attributes the policies for embeds read, each with the values of the dimension it is compared with.
    const read = new Map<string, { readonly dataset: Dataset; readonly member: string }>()
    for (const dataset of datasets) {
      const policies = embedPolicies(dataset)
      // A policy giving embeds every row reads nothing of the viewer.
      if (policies.some((p) => p.all_rows === true)) continue
      for (const policy of policies) {
        for (const a of attributesOf(policy)) if (!read.has(a.name)) read.set(a.name, { dataset, member: a.member })
      }
    }
    const attributesRead = yield* Effect.forEach([...read.entries()], ([name, { dataset, member }]) =>
      Effect.gen(function*() {
        const dimension = dataset.model.dimensions.find((d) => d.name === member)
        const options = dimension === undefined || dimension.type === "time"
          ? []
          : yield* LockedFilters.valuesOf(maker.tenantId, dataset, member, makers, attributeOptions)
        return { name, title: dimension === undefined ? name : titleOf(dimension), options }
      }))
    return { visuals, warnings, filters, attributes: attributesRead }
  })
