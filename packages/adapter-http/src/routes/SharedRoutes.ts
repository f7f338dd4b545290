/**
 * Shared content on the web: a public link's page at `/s/{token}` (its
 * `link_url`) and an embed at `/embed?token={jwt}` (a query parameter: a
 * JWT is longer than a path segment may be). Each answers a browser with
 * HTML and a client that accepts JSON with JSON or `application/problem+json`
 * (content negotiation on the same URL), and decides access again on every
 * request (`SharedViews`), so a revoked, paused or expired grant is refused
 * at once. A watermarked share has no JSON view and serves no rows beside
 * what its page draws under the watermark (`Watermarks`, decision 0014).
 *
 * A protected link's form posts its password back to the link; the right
 * one sets a session cookie bound to the grant and its password (HttpOnly,
 * SameSite=Lax, scoped to the link's path). Wrong passwords count per
 * client address (5 per 5 minutes, then 429 with `Retry-After`), and every
 * request too (at most 120 in any minute per address: each view runs the
 * report's queries), whose limit's `X-RateLimit-*` headers every answer
 * carries.
 *
 * @since 0.1.0
 */
import { Problems } from "@analytics/api"
import {
  type AuditLog,
  BlobStore,
  Comments,
  type CommentStore,
  Csv,
  type Datasets,
  type DocumentRenderers,
  type ExportJob,
  Exports,
  type ExportStore,
  SharedExports,
  SignedUrl,
  type DatasetStore,
  type DirectoryStore,
  type EventPublisher,
  type GrantStore,
  Limiter,
  Metrics,
  OperationLimits,
  type PasswordHasher,
  ProblemCode,
  type ReportStore,
  type ReportViews,
  SharedSubjects,
  SharedViews,
  type ShareTokens,
  TenantBranding,
  type Transactor,
  Watermarks
} from "@analytics/core"
import { Format, Theme } from "@analytics/charts"
import type { ViewerData } from "@analytics/viewer"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { type HttpServerError, HttpRouter, HttpServerRequest, HttpServerResponse, UrlParams } from "effect/http"
import { type AnswerableError, problemMembers } from "../edge/DomainProblems.ts"
import { pathOf } from "../edge/Url.ts"
import * as RateLimiting from "../edge/RateLimiting.ts"
import { readingOnce } from "../handlers/Handling.ts"
import { ServiceInfo } from "../ServiceInfo.ts"
import * as ExportRoutes from "./ExportRoutes.ts"
import * as SharedReport from "./SharedReport.ts"
import * as SharePage from "./SharePage.ts"
import * as ViewerAssets from "./ViewerAssets.ts"

/** Where public links and embeds are served, under the public base URL. */
export const paths = { link: "/s", embed: "/embed" } as const

/**
 * Whether a request is for a share page (a link's or an embed's): they act
 * with the link's or the token's authority, never the console session's,
 * so the edge checks their forms for their origin only (decision 0022);
 * and they count every request against the client address's shared-view
 * limit and write its headers, so the edge counts none of them (decision 0009).
 */
export const isShared = (url: string): boolean => {
  const path = pathOf(url)
  return path.startsWith(`${paths.link}/`) || path === paths.embed || path.startsWith(`${paths.embed}/`)
}

/** A link's URL, as `link_url` gives it. */
export const linkUrl = (publicBaseUrl: string, slug: string) => `${publicBaseUrl}${paths.link}/${slug}`

/** An embed's URL for a token. */
export const embedUrl = (publicBaseUrl: string, token: string) => `${publicBaseUrl}${paths.embed}?token=${encodeURIComponent(token)}`

/** The iframe snippet an embedding app puts in its page. */
export const iframeSnippet = (url: string, title: string) =>
  `<iframe src="${SharePage.escape(url)}" title="${SharePage.escape(title)}" width="100%" height="600" ` +
  `style="border:0" loading="lazy" referrerpolicy="no-referrer"></iframe>`

/** Every route, as `[method, path]` (the edge's 404/405 answers know them). */
export const routes: ReadonlyArray<readonly [string, string]> = [
  ["GET", `${paths.link}/:slug`],
  ["POST", `${paths.link}/:slug`],
  ["GET", `${paths.link}/:slug/download/:visual_id`],
  ["POST", `${paths.link}/:slug/export`],
  ["GET", `${paths.link}/:slug/jobs/:job_id`],
  ["GET", paths.embed],
  ["GET", `${paths.embed}/download/:visual_id`],
  ["POST", `${paths.embed}/export`],
  ["GET", `${paths.embed}/jobs/:job_id`],
  // Within a workspace share (decision 0014).
  ["GET", `${paths.link}/:slug/reports/:report_id`],
  ["GET", `${paths.link}/:slug/dashboards/:dashboard_id`],
  ["GET", `${paths.embed}/reports/:report_id`],
  ["GET", `${paths.embed}/dashboards/:dashboard_id`]
]

/** What the routes read. */
type Services =
  | ExportStore.ExportStore
  | DocumentRenderers.DocumentRenderers
  | BlobStore.BlobStore
  | SignedUrl.UrlSigner
  | GrantStore.GrantStore
  | ShareTokens.ShareTokens
  | PasswordHasher.PasswordHasher
  | Limiter.Limiter
  | ReportStore.ReportStore
  | DatasetStore.DatasetStore
  | Datasets.Engines
  | CommentStore.CommentStore
  | DirectoryStore.DirectoryStore
  | SharedSubjects.Services
  // A shared export's audit entry.
  | AuditLog.AuditStore
  | EventPublisher.EventPublisher
  | Transactor.Transactor
  | TenantBranding.BrandingStore

const sessionCookie = "analytics_link_session"

/** A refusal, answered as a page or as a problem: its code, its sentence and its problem's extension members. */
interface Refusal {
  readonly code: ProblemCode.ProblemCode
  readonly detail: string
  readonly extensions?: Readonly<Record<string, unknown>> | undefined
}

/** A form field's JSON, or its text when it is not JSON. */
const jsonOrText = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Whether the client asked for JSON rather than a page. */
const wantsJson = (request: HttpServerRequest.HttpServerRequest) => {
  const accept = request.headers.accept ?? ""
  return /json/.test(accept) && !/text\/html/.test(accept)
}

/**
 * What a shared page runs: nothing, an embed's token session alone (an embed
 * page drawn on the server: scripts of this origin, no requests) or the
 * viewer (a report's page: scripts of this origin and requests to it, its JSON view).
 */
type Scripts = "none" | "session" | "viewer"

const scriptSources: Readonly<Record<Scripts, string>> = {
  none: "",
  session: "script-src 'self'; ",
  viewer: "script-src 'self'; connect-src 'self'; "
}

/**
 * The headers every shared page carries: no caching, no referrer (the URL is the credential), no framing unless an embed,
 * and the scripts it runs (`Scripts`; never inline script, never eval).
 */
const pageHeaders = (embed: Framing, scripts: Scripts = "none") => ({
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-robots-tag": "noindex, nofollow",
  "content-security-policy": `default-src 'none'; ${scriptSources[scripts]}style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors ${
    embed === true ? "*" : embed === false ? "'none'" : embed
  }`
})

/**
 * Who may frame a page: nobody (`false`: a link's), anyone (`true`: an embed
 * whose token names no origin), or the one origin its token names (decision 0027).
 */
type Framing = boolean | string

/** An embed's framing: its token's origin, else anyone. */
const framing = (viewer: SharedViews.Viewer): Framing => viewer.origin ?? true

/** The comments a viewer reads, as JSON: authors by name only. */
const commentsJson = (shown: NonNullable<SharePage.ReportPageOptions["comments"]>) => ({
  data: shown.comments.map(({ authorName, comment }) => ({
    comment_id: comment.comment_id,
    visual_id: comment.visual_id,
    parent_id: comment.parent_id,
    author_name: authorName,
    text: comment.text,
    deleted: comment.deleted,
    created_at: comment.created_at,
    edited_at: comment.edited_at
  })),
  has_more: shown.more
})

/**
 * What a viewer sees, as JSON (the comments only when the grant allows comment): the viewer's data,
 * each visual's `columns` and `rows` as they always were, with what the viewer draws them from.
 */
const viewJson = (shared: SharedReport.SharedReport, viewer: SharedViews.Viewer, comments: SharePage.ReportPageOptions["comments"]) => ({
  report: shared.data.report,
  actions: viewer.grant.actions,
  watermark: viewer.watermark,
  pages: shared.data.pages,
  filters: shared.data.filters,
  filter_values: shared.data.filter_values,
  ...(comments === undefined ? {} : { comments: commentsJson(comments) })
})

/** A tile, a row of a workspace's list: what the JSON of a shared dashboard, dataset or workspace carries (decision 0014). */
const visualJson = (v: ReportViews.VisualView) =>
  v._tag === "Rows"
    ? { type: v.visual.type, title: v.visual.title ?? null, columns: v.columns.map((c) => c.name), rows: v.rows }
    : { type: v.visual.type, title: v.visual.title ?? null, unavailable: v.detail }

/** A shared dashboard as JSON: its tiles in the grid's order. */
const dashboardJson = (view: SharedSubjects.DashboardView, viewer: SharedViews.Viewer) => ({
  dashboard: { dashboard_id: view.dashboard.dashboard_id, name: view.dashboard.name },
  actions: viewer.grant.actions,
  watermark: viewer.watermark,
  tiles: view.tiles.map(({ tile, view: v }) => ({
    id: tile.id,
    report_id: tile.report_id,
    visual_id: tile.visual_id,
    x: tile.x,
    y: tile.y,
    width: tile.width,
    height: tile.height,
    ...(v._tag === "Missing" ? { type: null, title: null, unavailable: v.detail } : visualJson(v))
  }))
})

/** A shared dataset as JSON: its model's members (names, titles, types, formats; never its columns, expressions or policies) and its first rows. */
const datasetJson = (view: SharedSubjects.DatasetView, viewer: SharedViews.Viewer) => ({
  dataset: { dataset_id: view.dataset.dataset_id, name: view.dataset.name, description: view.dataset.description },
  actions: viewer.grant.actions,
  watermark: viewer.watermark,
  model: {
    dimensions: view.dataset.model.dimensions.map((d) => ({ name: d.name, title: d.title ?? null, type: d.type })),
    measures: view.dataset.model.measures.map((m) => ({ name: m.name, title: m.title ?? null, format: m.format ?? null }))
  },
  preview: view.preview._tag === "Rows"
    ? { columns: view.preview.columns, rows: view.preview.rows.slice(0, SharedSubjects.previewRows) }
    : { unavailable: view.preview.detail }
})

/** A shared workspace as JSON: its reports and dashboards, each with where it opens within the share. */
const workspaceJson = (view: SharedSubjects.WorkspaceView, viewer: SharedViews.Viewer, href: (kind: "reports" | "dashboards", id: string) => string) => ({
  workspace: view.workspace,
  actions: viewer.grant.actions,
  watermark: viewer.watermark,
  reports: view.reports.map((r) => ({ ...r, url: href("reports", r.report_id) })),
  dashboards: view.dashboards.map((d) => ({ ...d, url: href("dashboards", d.dashboard_id) }))
})

/** A body over the edge's cap, which a share refuses (413) rather than reading it as none. */
class BodyTooLarge {
  readonly _tag = "BodyTooLarge"
}

/** The body as `read` gives it; one that cannot be parsed reads as `fallback`, one over the cap fails with `BodyTooLarge`. */
const orTooLarge = <A, B>(read: Effect.Effect<A, HttpServerError.HttpServerError>, fallback: B): Effect.Effect<A | B, BodyTooLarge> =>
  Effect.catch(read, (error) =>
    error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"
      ? Effect.fail(new BodyTooLarge())
      : Effect.succeed(fallback))

/** What a share handler may fail with: core's errors, an export request its schema refuses, a body over the cap. */
type ShareFailure = AnswerableError | Schema.SchemaError | BodyTooLarge

/**
 * What a share says in place of an error's own problem, by the error's tag:
 * a link's `NotFound` names nothing (no such link and no such visual alike),
 * and a visual that fails names no query, store or engine to a visitor.
 */
const visitorsWords: Readonly<Partial<Record<string, Refusal>>> = {
  NotFound: { code: "resource/not-found", detail: "There is no such link, or no such visual in it" },
  QueryError: { code: "request/invalid", detail: "This visual cannot be shown" },
  QueryTimedOut: { code: "query/timed-out", detail: "The visual took too long to load" },
  StoreError: { code: "service/unavailable", detail: "The service is unavailable; retry later" },
  EngineError: { code: "service/unavailable", detail: "The service is unavailable; retry later" }
}

/** The refusal of a share's error: the visitor's words for it, else its own problem (`DomainProblems`). */
const refusalOf = (error: ShareFailure): Refusal => {
  if (error instanceof BodyTooLarge) return { code: "request/body-too-large", detail: "The body is too large" }
  if (Schema.isSchemaError(error)) return { code: "request/invalid", detail: error.message }
  const words = visitorsWords[error._tag]
  if (words !== undefined) return words
  const { detail, ...extensions } = problemMembers(error)
  return { code: error.code, detail: detail ?? ProblemCode.catalogue[error.code].title, extensions }
}

/** The services a share request runs its use cases with, once `handle` has made them. */
const RequestServices = Context.Reference<Context.Context<Services> | undefined>("@analytics/adapter-http/SharedRoutes/RequestServices", {
  defaultValue: () => undefined
})

/** The share routes on the `HttpRouter`, over the services in context. */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const info = yield* ServiceInfo
  const assets = yield* ViewerAssets.ViewerAssets
  const theme = Theme.theme({ primaryColor: info.branding.primaryColor })
  const locale = info.branding.locale ?? Format.defaultLocale
  const services = yield* Effect.context<Services>()
  /** The service's own look, what a share page wears when its tenant set none (or is not known: a token that is no link). */
  const serviceBranding: SharePage.Branding = { name: info.branding.name, primaryColor: info.branding.primaryColor, logo: null }
  const secure = info.publicBaseUrl.startsWith("https:")
  const basePath = new URL(info.publicBaseUrl).pathname.replace(/\/+$/, "")
  const run = <A, E, R extends Services>(effect: Effect.Effect<A, E, R>) =>
    Effect.withFiber((fiber) => Effect.provideContext(effect, fiber.getRef(RequestServices) ?? services)) as Effect.Effect<A, E, Exclude<R, Services>>

  /** Answers a refusal as the client wants it: a page (the password form for a link's password problems) or a problem. */
  const refuse = (request: HttpServerRequest.HttpServerRequest, refusal: Refusal, embed: boolean, branding: SharePage.Branding) => {
    const status = ProblemCode.catalogue[refusal.code].status
    // A 429's Retry-After is its body's `retry_after`, as the API's are (decision 0009).
    const retryAfter = refusal.extensions?.retry_after
    const headers = {
      ...pageHeaders(embed),
      ...(typeof retryAfter === "number" ? { "retry-after": String(retryAfter) } : {})
    }
    if (wantsJson(request)) {
      return HttpServerResponse.jsonUnsafe(Problems.undeclared(refusal.code, refusal.detail, refusal.extensions), {
        status,
        contentType: "application/problem+json",
        headers
      })
    }
    const passwordProblem = refusal.code === "share/password-required" || refusal.code === "share/password-incorrect" ||
      refusal.code === "rate-limit/password-attempts-exceeded"
    const page = passwordProblem
      ? SharePage.passwordPage(branding, refusal.code === "share/password-required" ? undefined : refusal.detail)
      : SharePage.refusalPage(branding, refusal.code, refusal.detail, embed ? "view" : "link")
    return HttpServerResponse.text(page, { status, contentType: "text/html; charset=utf-8", headers })
  }

  /** A tenant's branding over the service's: a store that fails leaves the service's (a page is still answered). */
  const brandingOf = (tenantId: Parameters<typeof TenantBranding.get>[0]) =>
    run(TenantBranding.get(tenantId)).pipe(
      Effect.map((b): SharePage.Branding => ({
        name: b.name ?? serviceBranding.name,
        primaryColor: b.accent_color ?? serviceBranding.primaryColor,
        logo: b.logo
      })),
      Effect.orElseSucceed(() => serviceBranding)
    )

  /** The chart theme of a page's branding: the service's, made once, unless the tenant set its accent. */
  const themeOf = (b: SharePage.Branding) => b.primaryColor === serviceBranding.primaryColor ? theme : Theme.theme({ primaryColor: b.primaryColor })

  /** The branding of the share a request names, for its refusal's page: the link's or the embed token's tenant's. */
  const refusalBranding = (embed: boolean) =>
    Effect.gen(function*() {
      const tenantId = embed
        ? yield* Effect.flatMap(embedToken, (token) => run(SharedViews.tenantOfEmbed(token)))
        : yield* Effect.flatMap(param("slug"), (slug) => run(SharedViews.tenantOfLink(slug)))
      return tenantId === undefined ? serviceBranding : yield* brandingOf(tenantId)
    }).pipe(Effect.orElseSucceed(() => serviceBranding))

  const clientIp = Effect.map(HttpServerRequest.HttpServerRequest, (request) => Option.getOrElse(request.remoteAddress, () => "unknown"))

  /**
   * Counts a request against its client address's shared-view limit (each
   * view runs the report's queries, and no tenant token pays for it): the
   * decision, and the limit's headers every answer carries.
   */
  const meter = Effect.flatMap(clientIp, (ip) => {
    const limit = OperationLimits.sharedViews(ip)
    return Effect.map(
      run(Effect.flatMap(Limiter.Limiter, (limiter) => Effect.zip(limiter.decide(limit.quotas), Clock.currentTimeMillis))),
      ([decision, now]) => ({ limit, decision, headers: RateLimiting.headers(limit.quotas, decision, now) })
    )
  })

  /**
   * Runs a share handler once its request is counted (a refused one runs
   * nothing): its errors become refusals, answered as the client wants,
   * and every answer, refusals and 429s included, carries the shared-view
   * limit's headers.
   */
  const handle = (embed: boolean, effect: Effect.Effect<HttpServerResponse.HttpServerResponse, ShareFailure, HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext>) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.flatMap(meter, ({ decision, headers, limit }) => {
        /** A refusal answered; one by a rate limit counted in the metrics, as the edge's are (class `shared`). */
        const refused = (refusal: Refusal) =>
          Effect.flatMap(wantsJson(request) ? Effect.succeed(serviceBranding) : refusalBranding(embed), (branding) =>
            refusal.code.startsWith("rate-limit/")
              ? Effect.as(Metrics.rateLimitRejected("shared", refusal.code), refuse(request, refusal, embed, branding))
              : Effect.succeed(refuse(request, refusal, embed, branding)))
        const answered = decision.allowed
          ? effect.pipe(
            Effect.catch((error) => refused(refusalOf(error))),
            // One share request's reports and datasets read once: its visuals, filters and tiles read the same ones many times.
            (answered) => Effect.suspend(() => Effect.provideService(answered, RequestServices, readingOnce(services)))
          )
          : refused(refusalOf(new Limiter.RateLimited({ code: limit.code, detail: limit.detail(decision.refusedBy ?? ""), retryAfterSeconds: decision.retryAfterSeconds })))
        return Effect.map(answered, (response) => HttpServerResponse.setHeaders(response, headers))
      }))

  const param = (name: string) => Effect.map(HttpRouter.params, (params) => params[name] ?? "")

  /** The viewer's entry script, under the public base URL's path; none without a built viewer. */
  const script = assets.entry === null ? undefined : `${basePath}${ViewerAssets.path}/${assets.entry}`
  /** The chunks it imports, preloaded with it. */
  const preload = (assets.entries.viewer?.closure ?? []).filter((file) => file !== assets.entry).map((file) => `${basePath}${ViewerAssets.path}/${file}`)
  /** The embed entry: the token session of an embed page that runs no viewer (decision 0027); none in an older build. */
  const sessionEntry: SharePage.SessionScript | undefined = assets.entries.embed === undefined ? undefined : {
    script: `${basePath}${ViewerAssets.path}/${assets.entries.embed.file}`,
    preload: assets.entries.embed.closure.slice(1).map((file) => `${basePath}${ViewerAssets.path}/${file}`)
  }
  /** The token session an embed's page drawn on the server runs, so every embed renews alike; none on a link's page. */
  const sessionOf = (embed: Framing) => embed === false ? undefined : sessionEntry

  /** The report filters' values a view asks for (`?filters=`, SharedReport's encoding). */
  const filterValues = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    SharedReport.filterValues(new URL(request.url, "http://localhost").searchParams.get("filters")))

  /** The report as a page (its download controls when the share allows download), or JSON; with the filters' values asked for. */
  const show = (viewer: SharedViews.Viewer, embed: Framing, urls: { readonly download: (visualId: string) => string; readonly export: string }) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const values = yield* filterValues
      const view = yield* run(SharedViews.render(viewer, values))
      const controls = yield* run(SharedViews.filterControls(viewer))
      // Rule 1: with only view, no comments are read and the page has no comment section.
      const comments = yield* run(Comments.shared(viewer))
      const json = wantsJson(request)
      const branding = yield* brandingOf(viewer.grant.tenant_id)
      const shared = yield* SharedReport.make(view, {
        // The charts in the tenant's accent, as the page.
        theme: themeOf(branding),
        locale,
        controls,
        values,
        downloadUrl: SharedViews.downloadsRows(viewer) ? urls.download : undefined,
        draw: !json,
        rows: Watermarks.servesRows(viewer)
      })
      if (json) return HttpServerResponse.jsonUnsafe(viewJson(shared, viewer, comments), { headers: pageHeaders(embed) })
      const downloads = SharedViews.may(viewer, "download")
      // A watermarked report's page runs no viewer (it serves no rows): an embed's runs its token session alone.
      const session = viewer.watermark === null ? undefined : sessionOf(embed)
      const page = SharePage.reportPage(shared, view, {
        branding,
        watermark: viewer.watermark,
        exportUrl: downloads && (yield* run(Exports.availableFormats)).has("pdf") ? urls.export : undefined,
        comments,
        script,
        preload,
        session
      })
      const scripts: Scripts = script !== undefined && viewer.watermark === null ? "viewer" : session !== undefined ? "session" : "none"
      return HttpServerResponse.text(page, { contentType: "text/html; charset=utf-8", headers: pageHeaders(embed, scripts) })
    })

  /** One visual as a CSV download. */
  const download = (viewer: SharedViews.Viewer) =>
    Effect.gen(function*() {
      const visualId = yield* param("visual_id")
      // `?filters=`: the filters on screen, which the page's per-visual menu sends (decision 0014).
      const { columns, rows, visual } = yield* run(SharedViews.download(viewer, visualId, yield* filterValues))
      return HttpServerResponse.text(Csv.table(columns, rows), {
        contentType: "text/csv; charset=utf-8",
        headers: { ...pageHeaders(false), "content-disposition": `attachment; filename="${visual.id}.csv"` }
      })
    })

  /** A page drawn on the server: an embed's with its token session (`sessionOf`), which its policy then lets run. */
  const serverPage = (embed: Framing, html: (session: SharePage.SessionScript | undefined) => string) => {
    const session = sessionOf(embed)
    return HttpServerResponse.text(html(session), { contentType: "text/html; charset=utf-8", headers: pageHeaders(embed, session === undefined ? "none" : "session") })
  }

  /** An answer as the client wants it: JSON, or the page (`serverPage`). */
  const answer = (embed: Framing, json: () => unknown, html: (session: SharePage.SessionScript | undefined) => string) =>
    Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
      wantsJson(request) ? HttpServerResponse.jsonUnsafe(json(), { headers: pageHeaders(embed) }) : serverPage(embed, html))

  /**
   * A shared dashboard as a page or JSON: each tile's CSV when its own share allows rows (`download`, no
   * watermark); no PDF (exports are of a report), and none within a workspace share (decision 0014).
   */
  const showDashboard = (viewer: SharedViews.Viewer, embed: Framing, view: SharedSubjects.DashboardView, download?: (tileId: string) => string) =>
    Effect.gen(function*() {
      if (wantsJson(yield* HttpServerRequest.HttpServerRequest)) {
        return HttpServerResponse.jsonUnsafe(dashboardJson(view, viewer), { headers: pageHeaders(embed) })
      }
      // Each tile a card: its chart drawn as SVG (no viewer on a dashboard's page; an embed's runs its token session), at its tile's size on a 1280 px screen.
      const branding = yield* brandingOf(viewer.grant.tenant_id)
      const cards = new Map<string, { readonly data: ViewerData.VisualData; readonly svg: string | undefined }>()
      for (const { tile, view: v } of view.tiles) {
        if (v._tag !== "Missing") {
          cards.set(tile.id, yield* SharedReport.visual(v, { theme: themeOf(branding), locale, draw: true, size: SharePage.tileChartSize(tile), rows: Watermarks.servesRows(viewer) }))
        }
      }
      return serverPage(embed, (session) =>
        SharePage.dashboardPage(view, {
          branding,
          watermark: viewer.watermark,
          session,
          downloadUrl: viewer.grant.subject_type === "dashboard" && SharedViews.downloadsRows(viewer) ? download : undefined,
          cards
        }))
    })

  /**
   * What the grant shares, as a page or JSON: a report as it always was; a
   * dashboard, a dataset or a workspace (whose items open at `within`).
   */
  const showShared = (
    viewer: SharedViews.Viewer,
    embed: Framing,
    urls: Parameters<typeof show>[2],
    within: (kind: "reports" | "dashboards", id: string) => string
  ) =>
    Effect.gen(function*() {
      if (wantsJson(yield* HttpServerRequest.HttpServerRequest)) yield* Watermarks.jsonView(viewer)
      switch (viewer.grant.subject_type) {
        case "report":
          return yield* show(viewer, embed, urls)
        case "dashboard":
          return yield* showDashboard(viewer, embed, yield* run(SharedSubjects.dashboard(viewer)), urls.download)
        case "dataset": {
          const view = yield* run(SharedSubjects.dataset(viewer))
          const branding = yield* brandingOf(viewer.grant.tenant_id)
          return yield* answer(embed, () => datasetJson(view, viewer), (session) => SharePage.datasetPage(view, { branding, watermark: viewer.watermark, session }))
        }
        case "workspace": {
          const view = yield* run(SharedSubjects.workspace(viewer))
          const branding = yield* brandingOf(viewer.grant.tenant_id)
          return yield* answer(
            embed,
            () => workspaceJson(view, viewer, within),
            (session) => SharePage.workspacePage(view, { branding, watermark: viewer.watermark, session, href: within })
          )
        }
      }
    })

  /**
   * A share's own page (`/s/{token}`, `/embed?token=`) as `showShared` answers it, its open counted (decision 0014,
   * "Labels and opens"): a page loaded (GET) is one open; a HEAD, the JSON its viewer then reads, the items of a shared
   * workspace, downloads and exports are not. A password link's form is a refusal and counts nothing: the
   * page that follows its unlocking does. Counted once the page is made, and never failing it.
   */
  const showOpened = (viewer: SharedViews.Viewer, embed: Framing, urls: Parameters<typeof show>[2], within: Parameters<typeof showShared>[3]) =>
    Effect.gen(function*() {
      const response = yield* showShared(viewer, embed, urls, within)
      const request = yield* HttpServerRequest.HttpServerRequest
      // A HEAD (a checker's, answered as GET without the body) loads no page.
      if (request.method === "GET" && !wantsJson(request)) yield* run(SharedViews.countOpen(viewer))
      return response
    })

  /** A report or a dashboard of a shared workspace, drawn as its own share's page is; one of another workspace is 404. */
  const showWithin = (viewer: SharedViews.Viewer, embed: Framing, kind: "reports" | "dashboards", urls: Parameters<typeof show>[2]) =>
    Effect.gen(function*() {
      if (wantsJson(yield* HttpServerRequest.HttpServerRequest)) yield* Watermarks.jsonView(viewer)
      if (kind === "reports") return yield* show(yield* run(SharedSubjects.reportWithin(viewer, yield* param("report_id"))), embed, urls)
      return yield* showDashboard(viewer, embed, yield* run(SharedSubjects.dashboardWithin(viewer, yield* param("dashboard_id"))))
    })

  const linkViewer = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    return yield* run(SharedViews.viewLink(yield* param("slug"), request.cookies[sessionCookie]))
  })
  const embedToken = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
    new URL(request.url, "http://localhost").searchParams.get("token") ?? "")
  const embedViewer = Effect.flatMap(embedToken, (token) => run(SharedViews.viewEmbed(token)))

  /** The password from a form post or a JSON body; empty when there is none. */
  const passwordOf = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const type = request.headers["content-type"] ?? ""
    if (type.startsWith("application/json")) {
      const body = yield* orTooLarge(request.json, {})
      const password = (body as { readonly password?: unknown } | null)?.password
      return typeof password === "string" ? password : ""
    }
    const params = yield* orTooLarge(request.urlParamsBody, UrlParams.empty)
    return Option.getOrElse(UrlParams.getFirst(params, "password"), () => "")
  })

  const unlock = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const slug = yield* param("slug")
    const password = (yield* passwordOf).slice(0, 1024)
    const opened = yield* run(SharedViews.unlock(slug, password, yield* clientIp))
    const location = `${basePath}${paths.link}/${slug}`
    const response = wantsJson(request)
      ? HttpServerResponse.empty({ status: 204, headers: pageHeaders(false) })
      : HttpServerResponse.redirect(location, { status: 303, headers: pageHeaders(false) })
    return opened === undefined ? response : HttpServerResponse.setCookieUnsafe(response, sessionCookie, opened.session, {
      path: location,
      httpOnly: true,
      sameSite: "lax",
      secure,
      maxAge: `${opened.maxAgeSeconds} seconds`
    })
  })

  const links = ExportRoutes.resultLinks(info.publicBaseUrl, Context.get(services, SignedUrl.UrlSigner), Context.get(services, BlobStore.BlobStore))

  /**
   * An export request from a form post (`format`, `visual_id`, `pages` repeated, `filters` the JSON of the values on
   * the page, as `?filters=` holds them) or a JSON body, checked.
   */
  const exportRequestOf = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const type = request.headers["content-type"] ?? ""
    const input: unknown = type.startsWith("application/json")
      ? yield* orTooLarge(request.json, null)
      : yield* Effect.map(orTooLarge(request.urlParamsBody, UrlParams.empty), (params) => {
        const pages = UrlParams.getAll(params, "pages")
        const visualId = UrlParams.getFirst(params, "visual_id")
        const filters = Option.getOrElse(UrlParams.getFirst(params, "filters"), () => "")
        return {
          format: Option.getOrUndefined(UrlParams.getFirst(params, "format")),
          ...(pages.length === 0 ? {} : { pages }),
          ...(Option.isSome(visualId) && visualId.value !== "" ? { visual_id: visualId.value } : {}),
          // Not JSON: left as text, which the schema refuses in words.
          ...(filters === "" ? {} : { filters: jsonOrText(filters) })
        }
      })
    return yield* Schema.decodeUnknownEffect(SharedExports.SharedExportRequest)(input, { onExcessProperty: "error" })
  })

  /** Queues the viewer's export: 202 with the job for a client, 303 to its status page for a browser. */
  const requestExport = (viewer: SharedViews.Viewer, statusPath: (jobId: string) => string) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const job = yield* run(SharedExports.request(viewer, yield* exportRequestOf, yield* clientIp))
      const location = statusPath(job.job_id)
      return wantsJson(request)
        ? HttpServerResponse.jsonUnsafe(yield* sharedJobJson(job), { status: 202, headers: { ...pageHeaders(false), location } })
        : HttpServerResponse.redirect(location, { status: 303, headers: pageHeaders(false) })
    })

  /** A job as its viewer sees it, with the signed URL of its file once it has one. */
  const sharedJobJson = (job: ExportJob.ExportJob) =>
    Effect.map(job.status === "succeeded" ? links.url(job) : Effect.succeed(undefined), (link) => ({
      job_id: job.job_id,
      format: job.request.format,
      status: job.status,
      percent_complete: job.percent_complete,
      error: job.failure,
      result: job.result === null ? null : { filename: job.result.filename, content_type: job.result.contentType, bytes: job.result.bytes, warnings: job.result.warnings },
      url: link?.url ?? null,
      expires_at: link?.expires_at ?? null
    }))

  /** The job's status: JSON (with Retry-After while it runs); for a browser, the file once made, or a page that looks again. */
  const exportStatus = (viewer: SharedViews.Viewer, embed: Framing) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const job = yield* run(SharedExports.job(viewer, yield* param("job_id")))
      const shown = yield* sharedJobJson(job)
      const waiting = job.status === "queued" || job.status === "running"
      if (wantsJson(request)) {
        return HttpServerResponse.jsonUnsafe(shown, { headers: { ...pageHeaders(embed), ...(waiting ? { "retry-after": "2" } : {}) } })
      }
      if (shown.url !== null) return HttpServerResponse.redirect(shown.url, { status: 303, headers: pageHeaders(embed) })
      return HttpServerResponse.text(SharePage.exportPage(yield* brandingOf(viewer.grant.tenant_id), job), { contentType: "text/html; charset=utf-8", headers: pageHeaders(embed) })
    })

  /** Where a link's and an embed's report pages send downloads and exports. */
  const linkUrls = (link: string) => ({ download: (visualId: string) => `${link}/download/${encodeURIComponent(visualId)}`, export: `${link}/export` })
  const embedUrls = (token: string) => ({
    download: (visualId: string) => `${basePath}${paths.embed}/download/${encodeURIComponent(visualId)}?token=${encodeURIComponent(token)}`,
    export: `${basePath}${paths.embed}/export?token=${encodeURIComponent(token)}`
  })

  const linkPath = Effect.map(param("slug"), (slug) => `${basePath}${paths.link}/${slug}`)

  return Layer.mergeAll(
    HttpRouter.add("POST", `${paths.link}/:slug/export`, handle(false, Effect.flatMap(linkViewer, (viewer) =>
      Effect.flatMap(linkPath, (link) => requestExport(viewer, (jobId) => `${link}/jobs/${jobId}`))))),
    HttpRouter.add("GET", `${paths.link}/:slug/jobs/:job_id`, handle(false, Effect.flatMap(linkViewer, (viewer) => exportStatus(viewer, false)))),
    HttpRouter.add("POST", `${paths.embed}/export`, handle(true, Effect.flatMap(embedViewer, (viewer) =>
      Effect.flatMap(embedToken, (token) => requestExport(viewer, (jobId) => `${basePath}${paths.embed}/jobs/${jobId}?token=${encodeURIComponent(token)}`))))),
    HttpRouter.add("GET", `${paths.embed}/jobs/:job_id`, handle(true, Effect.flatMap(embedViewer, (viewer) => exportStatus(viewer, framing(viewer))))),
    HttpRouter.add("GET", `${paths.link}/:slug`, handle(false, Effect.flatMap(linkViewer, (viewer) =>
      Effect.flatMap(linkPath, (link) =>
        showOpened(viewer, false, linkUrls(link), (kind, id) => `${link}/${kind}/${encodeURIComponent(id)}`))))),
    ...(["reports", "dashboards"] as const).map((kind) =>
      HttpRouter.add("GET", `${paths.link}/:slug/${kind}/:${kind === "reports" ? "report_id" : "dashboard_id"}`, handle(false, Effect.flatMap(linkViewer, (viewer) =>
        Effect.flatMap(linkPath, (link) => showWithin(viewer, false, kind, linkUrls(link))))))
    ),
    HttpRouter.add("POST", `${paths.link}/:slug`, handle(false, unlock)),
    HttpRouter.add("GET", `${paths.link}/:slug/download/:visual_id`, handle(false, Effect.flatMap(linkViewer, download))),
    HttpRouter.add("GET", paths.embed, handle(true, Effect.flatMap(embedViewer, (viewer) =>
      Effect.flatMap(embedToken, (token) =>
        showOpened(viewer, framing(viewer), embedUrls(token), (kind, id) => `${basePath}${paths.embed}/${kind}/${encodeURIComponent(id)}?token=${encodeURIComponent(token)}`))))),
    ...(["reports", "dashboards"] as const).map((kind) =>
      HttpRouter.add("GET", `${paths.embed}/${kind}/:${kind === "reports" ? "report_id" : "dashboard_id"}`, handle(true, Effect.flatMap(embedViewer, (viewer) =>
        Effect.flatMap(embedToken, (token) => showWithin(viewer, framing(viewer), kind, embedUrls(token))))))
    ),
    HttpRouter.add("GET", `${paths.embed}/download/:visual_id`, handle(true, Effect.flatMap(embedViewer, download)))
  )
}))
