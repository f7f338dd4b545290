/**
 * Errors mapped once (docs/decisions/0001): every error core exports declares
 * a code of the catalogue (or is listed here as never answered); each one a
 * handler answers with `toProblem` is the problem class of its code, saying
 * a sentence (one of the few codes no endpoint declares says it through
 * `problemMembers`); and the console has words for every code of the catalogue.
 */
import { ProblemClasses } from "@analytics/api"
import * as Core from "@analytics/core"
import { titleWords } from "@analytics/viewer/client/ProblemWords"
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { problemMembers, toProblem } from "../src/edge/DomainProblems.ts"

/** Errors core exports that never answer as a problem of their own, and why. */
const neverAnswered: Readonly<Record<string, string>> = {
  "Answerer.AnswererError": "a question's answerer failed: the answer stream says so in words (AnswerStream)",
  "DocumentRenderers.RenderError": "an export's file could not be made: the job fails, and says so on the job",
  "EngineScheduler.TurnExpired": "no engine turn in time: turned into an EngineError",
  "MeasureExpression.ExpressionInvalid": "turned into the ModelInvalid of the measure it is in",
  "Scim.ScimError": "answered as SCIM's own error body with its status (RFC 7644), not as a problem",
  "WebhookSignature.WebhookVerificationError": "a receiver's check of a delivery, for the webhook kits",
  "WebhookTransport.TransportFailure": "a delivery attempt failed: recorded on the delivery, retried"
}

/** The codes no endpoint of the contract declares, which the routes meeting them answer through `Problems.undeclared` (the share pages, the upload). */
const answeredUndeclared = new Set([
  "dataset/not-uploadable",
  "share/revoked",
  "share/paused",
  "share/password-required",
  "share/password-incorrect",
  "share/token-invalid",
  "share/token-expired"
])

/** Fields enough to make any of core's errors (each reads its own). */
const fields = {
  detail: "The detail",
  message: "The message",
  resource: "report",
  id: "r_1",
  operation: "get",
  cause: new Error("cause"),
  issuedAt: new Date(0),
  sort: "name",
  allowed: ["name", "-name"],
  plan: "team",
  retryAfterSeconds: 3,
  workspaceId: "w_1",
  webhookId: "wh_1",
  deliveryId: "d_1",
  email: "a@example.com",
  groupId: "g_1",
  userId: "u_1",
  status: "expired",
  datasetId: "ds_1",
  name: "Sales",
  uses: { reports: [{ id: "r_1", name: "Revenue" }], dashboards: [], alerts: [] },
  seconds: 30,
  source: "upload",
  state: "revoked",
  commentId: "c_1",
  field: "dataset_id"
}

/** The instances to try of an error whose code depends on its fields: each code it can have. */
const variants: Readonly<Record<string, ReadonlyArray<Record<string, unknown>>>> = {
  "Limiter.RateLimited": Object.keys(Core.ProblemCode.catalogue).filter((code) => code.startsWith("rate-limit/")).map((code) => ({ code })),
  "WebhookUrl.WebhookUrlRefused": [{ reason: "scheme" }, { reason: "invalid" }],
  "SharedViews.ShareClosed": [{ reason: "expired" }, { reason: "revoked" }, { reason: "paused" }],
  "SharedViews.TokenRefused": [{ reason: "expired" }, { reason: "invalid" }],
  "Datasets.EngineUnavailable": [{ source: "upload" }, { source: "postgres" }],
  "Exports.ResultNotReady": [{ status: "queued" }, { status: "failed" }]
}

/** Every error class core exports, by its `Module.Name`. */
const coreErrors = (): ReadonlyArray<readonly [string, new(args: object) => Error & { readonly code?: string }]> => {
  const found = new Map<unknown, string>()
  for (const [module, exports] of Object.entries(Core)) {
    if (typeof exports !== "object" || exports === null) continue
    for (const [name, value] of Object.entries(exports)) {
      if (typeof value === "function" && value.prototype instanceof Error && !found.has(value)) found.set(value, `${module}.${name}`)
    }
  }
  return [...found].map(([error, name]) => [name, error as new(args: object) => Error & { readonly code?: string }] as const)
}

describe("Errors mapped once", () => {
  it("every error core exports declares a code of the catalogue, or is never answered", () => {
    const errors = coreErrors()
    assert.isAtLeast(errors.length, 50, "the walk finds core's errors")
    for (const [name, Error] of errors) {
      const codes = (variants[name] ?? [{}]).map((given) => new Error({ ...fields, ...given }).code)
      if (name in neverAnswered) {
        assert.deepStrictEqual(codes.filter((code) => code !== undefined), [], `${name} is listed as never answered but has a code`)
        continue
      }
      for (const code of codes) {
        assert.isTrue(code !== undefined && Object.hasOwn(Core.ProblemCode.catalogue, code), `${name}'s code ${code} is not in ProblemCode.catalogue`)
      }
    }
    // The lists name errors core has.
    const names = new Set(errors.map(([name]) => name))
    for (const name of Object.keys(neverAnswered)) assert.isTrue(names.has(name), `${name} is not an error of core`)
  })

  it("each error a handler answers is the problem class of its code, with its sentence as the detail", () => {
    for (const [name, Error] of coreErrors()) {
      if (name in neverAnswered) continue
      for (const given of variants[name] ?? [{}]) {
        const error = new Error({ ...fields, ...given }) as unknown as Parameters<typeof toProblem>[0]
        if (answeredUndeclared.has(error.code)) {
          const { detail } = problemMembers(error)
          assert.isString(detail, `${name}'s problem says a sentence`)
          assert.isAbove(detail!.length, 0, name)
          continue
        }
        assert.isTrue(ProblemClasses.isDeclared(error.code), `${name}'s code ${error.code} has no problem class in Problems`)
        const problem = toProblem(error)
        assert.strictEqual(problem.code, error.code, name)
        assert.strictEqual(problem.constructor, ProblemClasses.byCode[error.code as ProblemClasses.Code], name)
        assert.isString(problem.detail, `${name}'s problem says a sentence`)
        assert.isAbove(problem.detail!.length, 0, name)
        // The problem is one the contract can encode: its extension members are there and of their schema.
        const body = Schema.encodeUnknownSync(problem.constructor as unknown as Schema.Codec<unknown, unknown>)(problem) as Record<string, unknown>
        assert.strictEqual(body.code, error.code, name)
      }
    }
  })

  it("every code of the catalogue has the console's words, not the service's title", () => {
    const codes = Object.keys(Core.ProblemCode.catalogue)
    assert.isAtLeast(codes.length, 60)
    for (const code of codes) {
      const said = titleWords(code, "THE SERVICE'S TITLE")
      assert.notStrictEqual(said, "THE SERVICE'S TITLE", `${code} has no words in ProblemWords`)
      assert.isAbove(said.length, 0, code)
    }
  })
})
