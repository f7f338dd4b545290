/**
 * What every handler uses: the services captured when the handlers are built, the caller
 * as the policy admits them, the request of a list, and the compiled JSON response.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { DashboardStore, DatasetStore, DirectoryStore, GrantStore, Policy, Principal, ReportStore, WorkspaceRecords, WorkspaceStore } from "@analytics/core"
import { Context, Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { toProblem } from "../edge/DomainProblems.ts"
import * as JsonResponse from "../edge/JsonResponse.ts"
import { pathOf } from "../edge/Url.ts"

/**
 * Captures services when the handlers are built and provides them to each
 * request as overlays on its context: O(1) per service, where providing a
 * whole captured `Context` would copy the request's (large) context per call.
 */
export const captured = <const Keys extends ReadonlyArray<Context.Key<any, any>>>(...keys: Keys) =>
  Effect.map(
    Effect.context<Keys[number]["Identifier"]>(),
    (context) => {
      const services = keys.map((key) => [key, Context.get(context, key)] as const)
      return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Keys[number]["Identifier"]>> =>
        Effect.updateContext(effect, (requestContext: Context.Context<any>) => {
          let next = requestContext
          for (const [key, service] of services) next = Context.add(next, key, service)
          return next
        }) as any
    }
  )

/**
 * `context` with its reports and datasets read once (`WorkspaceRecords.readOnce`):
 * for one view of a report or dashboard, whose visuals, filters and tiles
 * read the same records many times.
 */
export const readingOnce = <R>(context: Context.Context<R>): Context.Context<R> =>
  Context.add(
    Context.add(context, DatasetStore.DatasetStore, WorkspaceRecords.readOnce(Context.get(context as Context.Context<DatasetStore.DatasetStore>, DatasetStore.DatasetStore))),
    ReportStore.ReportStore,
    WorkspaceRecords.readOnce(Context.get(context as Context.Context<ReportStore.ReportStore>, ReportStore.ReportStore))
  ) as Context.Context<R>

/**
 * What deciding a member's access to a report, dashboard, dataset or
 * workspace reads (core's `Grants`: the grants, the directory for teams and
 * executive roles, and the subjects, docs/decisions/0014): for `captured`,
 * spread among a group's own services.
 */
export const accessServices = [
  GrantStore.GrantStore,
  DirectoryStore.DirectoryStore,
  WorkspaceStore.WorkspaceStore,
  ReportStore.ReportStore,
  DashboardStore.DashboardStore,
  DatasetStore.DatasetStore
] as const

/**
 * The caller of an operation, as the policy admits them (`Policy.authorize`):
 * the member it acts as, or a 403 problem. The finer checks of `granted` and
 * `owner` rules happen once the resource is read.
 */
export const caller = (operation: Policy.MemberOperation) =>
  Effect.flatMap(Principal.CurrentPrincipal, (principal) => Effect.mapError(Policy.authorize(principal, operation), toProblem))

/** The operator, as the policy admits them. */
export const operatorCaller = (operation: Policy.OperatorOperation) =>
  Effect.flatMap(Principal.CurrentPrincipal, (principal) => Effect.mapError(Policy.authorizeOperator(principal, operation), toProblem))

/**
 * What a list use case needs from the request: the path its cursor binds
 * (prefix-free), the raw query parameters, the caller's tenant (a cursor
 * continues its own tenant's list only, decision 0003), and the page size
 * and cursor.
 */
export const listRequest = (query: { readonly limit?: number | undefined; readonly cursor?: string | undefined }) =>
  // One read of the request's context (it runs on every list request), not three chained lookups.
  Effect.withFiber((fiber) => {
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    const principal = Context.getUnsafe(fiber.context, Principal.CurrentPrincipal)
    return Effect.succeed({
      endpoint: `${request.method} ${pathOf(request.url)}`,
      params: Context.getUnsafe(fiber.context, HttpServerRequest.ParsedSearchParams),
      tenant: principal._tag === "Member" ? principal.tenantId : "operator",
      limit: query.limit,
      cursor: query.cursor
    })
  }) as Effect.Effect<
    ListRequestOf,
    never,
    HttpServerRequest.HttpServerRequest | Principal.CurrentPrincipal | HttpServerRequest.ParsedSearchParams
  >

/** What `listRequest` answers. */
interface ListRequestOf {
  readonly endpoint: string
  readonly params: HttpServerRequest.ParsedSearchParams["Service"]
  readonly tenant: string
  readonly limit: number | undefined
  readonly cursor: string | undefined
}

/**
 * Every handler answers its success with the endpoint's compiled JSON encoder
 * (same body, status and content type as HttpApiBuilder's Schema encoding,
 * without walking the schema per response).
 */
export const respond = JsonResponse.make(Api)

/** A workspace record (report, dashboard, alert) as the API shows it: as stored, without its tenant. */
export const withoutTenant = <A extends { readonly tenant_id: unknown }>({ tenant_id: _, ...record }: A): Omit<A, "tenant_id"> => record
