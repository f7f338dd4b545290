/**
 * Problems in words for people: the service's titles speak to whoever
 * calls the API ("Missing or invalid bearer token", "The grant does not
 * hold together"); the console says what happened in the reader's words,
 * by problem code (the codes are stable, docs/decisions/0001). The field
 * messages of a validation problem (`errors[]`) and the `field: what`
 * details some refusals carry are turned into words a person can act on,
 * without the API's field names (docs/decisions/0023, "Errors in words").
 *
 * @since 0.1.0
 */
import type { ProblemCode } from "@analytics/core"
import { type MessageKey, msg } from "../i18n/msg.ts"

/**
 * The title of each code of the catalogue (core's `ProblemCode`), in words:
 * keyed by the catalogue's codes, so a code added there without its words
 * here fails to compile. A code the service may answer that is not in the
 * catalogue (`http/502` from a proxy) keeps the service's title.
 */
const titles: { readonly [Code in ProblemCode.ProblemCode]: MessageKey } = {
  "auth/unauthenticated": "problem.title.unauthenticated",
  "auth/forbidden": "problem.title.forbidden",
  "auth/sign-in-link-invalid": "problem.title.signInLink",
  "auth/csrf-failed": "problem.title.csrf",
  "share/expired": "problem.title.shareExpired",
  "share/revoked": "problem.title.shareRevoked",
  "share/paused": "problem.title.sharePaused",
  "share/password-required": "problem.title.passwordRequired",
  "share/password-incorrect": "problem.title.passwordIncorrect",
  "share/token-invalid": "problem.title.embedInvalid",
  "share/token-expired": "problem.title.embedExpired",
  "grant/invalid": "problem.title.grantInvalid",
  "grant/not-active": "problem.title.grantNotActive",
  "export/invalid": "problem.title.exportInvalid",
  "export/not-ready": "problem.title.exportNotReady",
  "export/url-invalid": "problem.title.exportUrl",
  "export/url-expired": "problem.title.exportUrl",
  "schedule/invalid": "problem.title.scheduleInvalid",
  "comment/invalid": "problem.title.commentInvalid",
  "comment/deleted": "problem.title.commentDeleted",
  "request/invalid": "problem.title.invalid",
  "request/malformed-json": "problem.title.unreadable",
  "request/unsupported-media-type": "problem.title.unreadable",
  "request/body-too-large": "problem.title.tooLarge",
  "route/not-found": "problem.title.notFound",
  "route/method-not-allowed": "problem.title.methodNotAllowed",
  "resource/not-found": "problem.title.notFound",
  "pagination/cursor-invalid": "problem.title.listChanged",
  "pagination/cursor-expired": "problem.title.listChanged",
  "pagination/cursor-mismatch": "problem.title.listChanged",
  "idempotency/in-progress": "problem.title.inProgress",
  "idempotency/invalid-key": "problem.title.idempotencyKey",
  "idempotency/key-reused": "problem.title.idempotencyReused",
  "webhook/scheme-not-allowed": "problem.title.httpsOnly",
  "webhook/firehose-not-in-plan": "problem.title.firehose",
  "webhook/disabled": "problem.title.webhookDisabled",
  "webhook/delivery-in-progress": "problem.title.deliveryInProgress",
  "directory/email-taken": "problem.title.emailTaken",
  "directory/managed-by-identity-provider": "problem.title.managed",
  "directory/user-deprovisioned": "problem.title.deprovisioned",
  "directory/invitation-not-found": "problem.title.invitationNotFound",
  "directory/invitation-closed": "problem.title.invitationClosed",
  "dataset/model-invalid": "problem.title.modelInvalid",
  "dataset/source-invalid": "problem.title.sourceInvalid",
  "dataset/engine-unavailable": "problem.title.engineUnavailable",
  "dataset/not-loaded": "problem.title.notLoaded",
  "dataset/in-use": "problem.title.datasetInUse",
  "dataset/not-uploadable": "problem.title.notUploadable",
  "dataset/refresh-needs-file": "problem.title.refreshNeedsFile",
  "dataset/upload-too-large": "problem.title.uploadTooLarge",
  "report/invalid": "problem.title.reportInvalid",
  "dashboard/invalid": "problem.title.dashboardInvalid",
  "query/invalid": "problem.title.queryInvalid",
  "query/timed-out": "problem.title.queryTimedOut",
  "rate-limit/burst-exceeded": "problem.title.tooMany",
  "rate-limit/sustained-exceeded": "problem.title.tooMany",
  "rate-limit/query-concurrency": "problem.title.tooManyQueries",
  "rate-limit/ai-questions-exceeded": "problem.title.tooMany",
  "rate-limit/exports-exceeded": "problem.title.tooMany",
  "rate-limit/password-attempts-exceeded": "problem.title.passwordAttempts",
  "rate-limit/shared-views-exceeded": "problem.title.tooMany",
  "rate-limit/sign-in-links-exceeded": "problem.title.signInLinks",
  "service/unavailable": "problem.title.unavailable",
  "internal": "problem.title.internal"
}

/** A problem's title in words: by its code, else the service's own title, else a generic one. */
export const titleWords = (code: string, title: string | undefined): string => {
  const key = Object.hasOwn(titles, code) ? titles[code as ProblemCode.ProblemCode] : undefined
  return key !== undefined ? msg(key) : title ?? msg("problem.generic")
}

/** The detail a validation problem carries beside its `errors` ("see errors"): said by the fields themselves. */
export const pointsToErrors = (detail: string): boolean => /see errors\.?$/i.test(detail)

/** A field's message in words: the schema's phrasing ("Expected a value with a length of at least 1, got \"\"") made plain. */
export const fieldWords = (message: string): string => {
  const text = message.trim()
  if (/^Expected a (value|string) with a length of at least 1\b/.test(text) || /^Expected a non[- ]empty/.test(text)) return msg("problem.field.empty")
  const most = /^Expected a (?:value|string) with (?:a length of )?at most (\d+)/.exec(text)
  if (most !== null) return msg("problem.field.tooLong", { count: most[1]! })
  if (/^Expected a string with no leading or trailing whitespace/.test(text)) return msg("problem.field.spaces")
  if (/^Expected a string matching the RegExp/.test(text)) return msg("problem.field.form")
  if (/IANA time zone/.test(text)) return msg("problem.field.timezone")
  if (/^must be in the future$/.test(text)) return msg("problem.field.future")
  if (/^Missing key\b/.test(text) || /^is missing$/.test(text)) return msg("problem.field.missing")
  // The service's own words ("Expected a five-field cron expression such as …"), without the echo of what was sent.
  const plain = text.replace(/, got .*$/s, "").replace(/^Expected (an? |one of )/, (_, a: string) => `Use ${a}`)
  return /[.!?]$/.test(plain) ? plain : `${plain}.`
}

/**
 * A refusal's `field: what is wrong` detail (`recipients: a@b.co is a
 * deprovisioned user`, `expires_at must be in the future`) as a field error,
 * so the form marks that field; `undefined` for any other detail.
 */
export const detailAsField = (detail: string): { readonly path: ReadonlyArray<string>; readonly message: string } | undefined => {
  const named = /^([a-z][a-z0-9]*(?:_[a-z0-9]+)*): (.+)$/s.exec(detail)
  if (named !== null) return { path: [named[1]!], message: named[2]! }
  const must = /^([a-z][a-z0-9]*_[a-z0-9_]+) (must .+)$/s.exec(detail)
  if (must !== null) return { path: [must[1]!], message: must[2]! }
  return undefined
}

/** A field's key in the API (`["payload", "cron"]` → `cron`): the request's part dropped, the first name kept. */
export const fieldKey = (path: ReadonlyArray<string | number>): string => {
  const rest = path.length > 1 && (path[0] === "payload" || path[0] === "body" || path[0] === "query" || path[0] === "path") ? path.slice(1) : path
  return String(rest.find((p) => typeof p === "string") ?? rest[0] ?? "")
}
