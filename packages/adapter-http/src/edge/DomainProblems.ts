/**
 * Domain errors as problems: each error of the core's use cases declares its
 * problem code (and the sentence its problem says) where it is declared; the
 * code picks the problem class of `@analytics/api` the endpoints declare for
 * it (`ProblemClasses`, derived from `Problems`). What is left here is the
 * wire's side only: the extension members a few problems carry, made from
 * the error's own fields, and the few sentences that name the service's
 * requests (docs/decisions/0001, "Errors mapped once").
 *
 * @since 0.1.0
 */
import { ProblemClasses } from "@analytics/api"
import { Errors } from "@analytics/core"
import type { DatasetDeletion, Exports, Grants, Invitations, ProblemCode, SemanticModel } from "@analytics/core"

/** The 429s' one extension: the seconds until the next request passes, as in `Retry-After`. */
const retryAfter = (error: { readonly retryAfterSeconds: number }) => ({ retry_after: error.retryAfterSeconds })

/**
 * The extension members of each problem whose class has some, by code, from
 * the fields of the errors of that code. An error of one of these codes is a
 * `DomainError` only if it has the fields its entry reads.
 */
const extensions = {
  "request/invalid": (error: { readonly issue: Errors.Issue }) => ({ errors: [error.issue] }),
  "dataset/model-invalid": (error: Pick<SemanticModel.ModelInvalid, "mismatches" | "fileColumns">) => ({
    ...(error.mismatches === undefined ? {} : { mismatches: error.mismatches }),
    ...(error.fileColumns === undefined ? {} : { file_columns: error.fileColumns })
  }),
  "query/invalid": (error: { readonly member?: string | undefined }) => (error.member === undefined ? {} : { member: error.member }),
  "directory/invitation-closed": (error: Pick<Invitations.InvitationClosed, "status">) => ({ status_of_invitation: error.status }),
  "dataset/in-use": ({ uses }: Pick<DatasetDeletion.DatasetInUse, "uses">) => ({
    reports: uses.reports.map((u) => ({ report_id: u.id, name: u.name })),
    dashboards: uses.dashboards.map((u) => ({ dashboard_id: u.id, name: u.name })),
    alerts: uses.alerts.map((u) => ({ alert_id: u.id, name: u.name }))
  }),
  "export/not-ready": (error: Pick<Exports.ResultNotReady, "status">) => ({ status_of_job: error.status }),
  "grant/not-active": (error: Pick<Grants.GrantNotActive, "state">) => ({ state: error.state }),
  "rate-limit/burst-exceeded": retryAfter,
  "rate-limit/sustained-exceeded": retryAfter,
  "rate-limit/query-concurrency": retryAfter,
  "rate-limit/ai-questions-exceeded": retryAfter,
  "rate-limit/exports-exceeded": retryAfter,
  "rate-limit/password-attempts-exceeded": retryAfter,
  "rate-limit/shared-views-exceeded": retryAfter,
  "rate-limit/sign-in-links-exceeded": retryAfter
} as const satisfies { readonly [C in ProblemClasses.Code]?: (error: never) => Omit<ProblemClasses.FieldsOf<C>, "detail"> }

/**
 * The sentences that name the service's own requests (a method, a path, a
 * body, a form's field), by code: the wire's words for what the error says
 * in the domain's (core names no HTTP request).
 */
const wireDetails: { readonly [C in ProblemCode.ProblemCode]?: (error: never) => string } = {
  "dataset/not-loaded": ({ datasetId }: { readonly datasetId: string }) =>
    `Dataset ${datasetId} has no rows yet: PUT a CSV or Parquet file to /v1/datasets/${datasetId}/data`,
  "dataset/refresh-needs-file": ({ datasetId }: { readonly datasetId: string }) =>
    `Dataset ${datasetId} is an upload: PUT its file to /v1/datasets/${datasetId}/data again`,
  "webhook/disabled": ({ webhookId }: { readonly webhookId: string }) =>
    `Webhook ${webhookId} is disabled; enable it with PATCH {"enabled": true} first`,
  "share/password-required": () => "Send the link's password (POST the form field or JSON member `password`)"
}

/** The codes whose problem class has a required member besides `detail`: each must have its entry in `extensions`. */
type NeedingExtensions = {
  [C in ProblemClasses.Code]: {} extends Omit<ProblemClasses.FieldsOf<C>, "detail"> ? never : C
}[ProblemClasses.Code]

/** Compiles only while every code needing extension members has them (a new problem class with one fails here). */
type _EveryExtensionMade = [NeedingExtensions] extends [keyof typeof extensions] ? true : never
const _everyExtensionMade: _EveryExtensionMade = true
void _everyExtensionMade

/** What an error of a code must carry besides its code and sentence: the fields its problem's extensions are made from. */
type NeedsOf<C> = C extends keyof typeof extensions ? Parameters<(typeof extensions)[C]>[0] : unknown

/**
 * Every error that answers as a problem: an error of a code of the
 * catalogue, with the sentence its problem says and the fields its
 * extensions are made from.
 */
export type AnswerableError = {
  [C in ProblemCode.ProblemCode]: Errors.Answerable & { readonly code: C } & NeedsOf<C>
}[ProblemCode.ProblemCode]

/** Every domain error a handler may meet: an answerable error whose code has a problem class. */
export type DomainError = Extract<AnswerableError, { readonly code: ProblemClasses.Code }>

/** The problem a domain error is: the class of its code (of each, for an error whose code depends on its fields). */
export type ProblemOf<E extends DomainError> = E extends { readonly code: infer C extends ProblemClasses.Code }
  ? ProblemClasses.ProblemOf<C>
  : never

/**
 * The members of the problem answering an error, besides those of its code:
 * the sentence it says and its extension members. A code with no problem
 * class (a share page's refusal) is answered with them through `Problems.undeclared`.
 */
export const problemMembers = (error: AnswerableError): { readonly detail: string | undefined; readonly [member: string]: unknown } => {
  const extend = (extensions as Partial<Record<string, (error: unknown) => object>>)[error.code]
  const wire = (wireDetails as Partial<Record<string, (error: unknown) => string>>)[error.code]
  return { detail: wire === undefined ? Errors.problemDetailOf(error) : wire(error), ...extend?.(error) }
}

/** The problem answering a domain error; made without a stack trace, as the domain's failures are (`Errors.withoutStackTrace`). */
export const toProblem = <E extends DomainError>(error: E): ProblemOf<E> => {
  const Problem = ProblemClasses.byCode[error.code] as unknown as new(fields: object) => ProblemOf<E>
  return Errors.withoutStackTrace(() => new Problem(problemMembers(error)))
}
