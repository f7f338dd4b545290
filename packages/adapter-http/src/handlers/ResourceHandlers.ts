/**
 * The list, create, get, update and delete handlers of a workspace resource
 * (the endpoints `ResourceEndpoints.group` of `@analytics/api` builds), written
 * once: each admits its caller through the core Policy
 * (`<resource>.<operation>`), runs the resource's use case in core, its errors
 * as problems, and answers the record as the API shows it (a list in its
 * envelope). Give the result to the group's `handleAll`.
 *
 * @since 0.1.0
 */
import { AuditLog, type Pagination, type Policy, type Principal, type Workspace } from "@analytics/core"
import { Effect } from "effect"
import type { HttpApiEndpoint } from "effect/http-api"
import type { DomainError, ProblemOf } from "../edge/DomainProblems.ts"
import { caller, listRequest, respond } from "./Handling.ts"

/** The five operations, as the policy names them after the resource. */
type Operation = "list" | "create" | "get" | "update" | "delete"

/** A resource whose five operations the policy knows (`datasets`, `reports`, ...). */
export type Name = {
  [O in Policy.MemberOperation]: O extends `${infer N}.list` ? `${N}.${Operation}` extends Policy.MemberOperation ? N : never
    : never
}[Policy.MemberOperation]

/**
 * A resource's use cases as its module in core exports them, each taking the
 * record's owner first; the changes take who acts last, for their audit
 * entries (a use case whose owner is the caller needs no more).
 */
export interface UseCases<Owner, Rec, Create, Update, EList, ECreate, EGet, EUpdate, ERemove, R> {
  readonly list: (owner: Owner, workspaceId: Workspace.WorkspaceId, request: Pagination.NewestFirstRequest) => Effect.Effect<
    Pagination.Page<Rec>,
    EList,
    R
  >
  readonly create: (owner: Owner, input: Create, by: AuditLog.Actor) => Effect.Effect<Rec, ECreate, R>
  readonly get: (owner: Owner, id: string) => Effect.Effect<Rec, EGet, R>
  readonly update: (owner: Owner, id: string, change: Update, by: AuditLog.Actor) => Effect.Effect<Rec, EUpdate, R>
  readonly remove: (owner: Owner, id: string, by: AuditLog.Actor) => Effect.Effect<void, ERemove, R>
}

/** The owner most resources' use cases take first: the caller's tenant. */
export const tenantOf = (member: Principal.Member) => member.tenantId

/** The owner some resources' use cases take first: the caller, whose rights on the record they check. */
export const memberItself = (member: Principal.Member) => member

/** The success value of one of the group's endpoints. */
type SuccessOf<Endpoint extends HttpApiEndpoint.Constraint> = HttpApiEndpoint.Success<Endpoint>["Type"]

/** The list query every resource's list endpoint takes. */
interface ListQuery {
  readonly workspace_id: Workspace.WorkspaceId
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

/**
 * The five handlers of the resource `name` of `group` (the handlers the group
 * builder gives): `owner` picks what its use cases take first (the caller's
 * tenant, or the caller), `run` runs them with the services they need and
 * their errors as problems, `toJson` shows a record; `beforeUpdate`, a check
 * of the caller's right on that one record before it changes.
 */
export const handlers = <
  Endpoints extends Record<Operation, HttpApiEndpoint.Constraint>,
  Owner,
  Rec,
  Create,
  Update,
  EList extends DomainError,
  ECreate extends DomainError,
  EGet extends DomainError,
  EUpdate extends DomainError,
  ERemove extends DomainError,
  Services,
  EBefore = never
>(
  _group: { readonly "~EndpointsByIdentifier": Endpoints },
  resource: {
    readonly name: Name
    readonly useCases: UseCases<Owner, Rec, Create, Update, EList, ECreate, EGet, EUpdate, ERemove, NoInfer<Services>>
    readonly owner: (member: Principal.Member) => Owner
    readonly run: <A, E extends DomainError>(effect: Effect.Effect<A, E, Services>) => Effect.Effect<A, ProblemOf<E>>
    readonly toJson: (record: NoInfer<Rec>) => SuccessOf<Endpoints["get"]>
    readonly beforeUpdate?: (member: Principal.Member, id: string) => Effect.Effect<void, EBefore>
  }
) => {
  const { name, owner, run, toJson, useCases } = resource
  const admitted = (operation: Operation) => caller(`${name}.${operation}` as Policy.MemberOperation)
  return {
    list: ({ endpoint, query }: { readonly endpoint: Endpoints["list"]; readonly query: ListQuery }) =>
      Effect.gen(function*() {
        const member = yield* admitted("list")
        const page = yield* run(useCases.list(owner(member), query.workspace_id, yield* listRequest(query)))
        return respond(endpoint, { data: page.data.map(toJson), page: page.page } as SuccessOf<Endpoints["list"]>)
      }),
    create: ({ endpoint, payload }: { readonly endpoint: Endpoints["create"]; readonly payload: Create }) =>
      Effect.gen(function*() {
        const member = yield* admitted("create")
        return respond(endpoint, toJson(yield* run(useCases.create(owner(member), payload, AuditLog.actorOf(member)))) as SuccessOf<Endpoints["create"]>)
      }),
    get: ({ endpoint, params }: { readonly endpoint: Endpoints["get"]; readonly params: { readonly id: string } }) =>
      Effect.gen(function*() {
        const member = yield* admitted("get")
        return respond(endpoint, toJson(yield* run(useCases.get(owner(member), params.id))))
      }),
    update: ({ endpoint, params, payload }: {
      readonly endpoint: Endpoints["update"]
      readonly params: { readonly id: string }
      readonly payload: Update
    }) =>
      Effect.gen(function*() {
        const member = yield* admitted("update")
        if (resource.beforeUpdate !== undefined) yield* resource.beforeUpdate(member, params.id)
        return respond(endpoint, toJson(yield* run(useCases.update(owner(member), params.id, payload, AuditLog.actorOf(member)))) as SuccessOf<Endpoints["update"]>)
      }),
    delete: ({ params }: { readonly params: { readonly id: string } }) =>
      Effect.gen(function*() {
        const member = yield* admitted("delete")
        yield* run(useCases.remove(owner(member), params.id, AuditLog.actorOf(member)))
      })
  }
}
