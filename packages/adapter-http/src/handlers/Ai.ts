/**
 * The handlers of `/v1/datasets/{id}/ask...`: questions answered from the semantic layer.
 *
 * @since 0.1.0
 */
import { Api, Problems } from "@analytics/api"
import { Format, Theme } from "@analytics/charts"
import { Answerer, DatasetStore, Datasets, DirectoryStore, Limiter, Questions, ReportStore, TenantCache } from "@analytics/core"
import { Effect, Stream } from "effect"
import { HttpServerRequest } from "effect/http"
import { toProblem } from "../edge/DomainProblems.ts"
import * as AnswerStream from "../routes/AnswerStream.ts"
import { ServiceInfo } from "../ServiceInfo.ts"
import { caller, captured, respond } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** The problem an answering failure is: the answerer's own as 503, the rest as the query endpoints answer them. */
const answerProblem = (error: Questions.AnswerError) =>
  error._tag === "AnswererError"
    ? new Problems.ServiceUnavailable({ detail: `The answerer could not answer: ${error.detail}` })
    : toProblem(error)

/**
 * `POST /v1/ai/ask`: one JSON answer, or server-sent events for a client
 * that accepts `text/event-stream` (the request is checked and the question
 * counted before the stream begins, so refusals are problem+json).
 */
export const aiLayer = ApiHandlers.group(Api, "ai", (handlers) =>
  Effect.gen(function*() {
    const services = yield* Effect.context<Questions.Services>()
    // An answer's chart in the deployment's colours and locale, as report views are.
    const info = yield* ServiceInfo
    const look: AnswerStream.Look = { theme: Theme.theme({ primaryColor: info.branding.primaryColor }), locale: info.branding.locale ?? Format.defaultLocale }
    const provide = yield* captured(
      Answerer.Answerer,
      Limiter.Limiter,
      TenantCache.TenantCache,
      DatasetStore.DatasetStore,
      ReportStore.ReportStore,
      DirectoryStore.DirectoryStore,
      Datasets.Engines
    )
    return handlers.handle("ask", ({ endpoint, payload }) =>
      Effect.gen(function*() {
        const member = yield* caller("ai.ask")
        const events = yield* Effect.mapError(provide(Questions.ask(member, payload)), toProblem)
        // The stream is read after this handler returns (and outside an idempotency transaction): it carries its own services.
        const stream = Stream.provideContext(events, services)
        const request = yield* HttpServerRequest.HttpServerRequest
        if (AnswerStream.wantsEventStream(request.headers.accept)) return AnswerStream.eventStream(stream, answerProblem, look)
        const answer = yield* Effect.mapError(Questions.collect(stream), answerProblem)
        return respond(endpoint, yield* AnswerStream.answerJson(answer, look))
      }))
  }))
