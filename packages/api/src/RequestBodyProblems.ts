/**
 * The problems of reading a request body, declared on every operation that
 * takes one: the edge answers a body over the cap with 413
 * `request/body-too-large` and one of another media type with 415
 * `request/unsupported-media-type`, before any endpoint sees it, so no
 * endpoint declares them itself; the document gets them here, once.
 *
 * @since 0.1.0
 */
import { ProblemCode } from "@analytics/core"
import * as Problems from "./Problems.ts"

/** The component schemas of the problems (registered by `HttpApi.AdditionalSchemas` under their identifiers). */
export const schemas = Problems.bodyProblems

const responses = [
  { status: "413", code: "request/body-too-large", component: "BodyTooLarge" },
  { status: "415", code: "request/unsupported-media-type", component: "UnsupportedMediaType" }
] as const

/** Declares 413 and 415 on every operation with a request body (for `OpenApi.Transform`). */
export const document = (spec: Record<string, any>): Record<string, any> => {
  for (const item of Object.values<Record<string, any>>(spec.paths ?? {})) {
    for (const operation of Object.values<any>(item)) {
      if (operation?.requestBody === undefined) continue
      operation.responses ??= {}
      for (const { code, component, status } of responses) {
        operation.responses[status] ??= {
          description: ProblemCode.catalogue[code].title,
          content: { "application/problem+json": { schema: { $ref: `#/components/schemas/${component}` } } }
        }
      }
    }
  }
  return spec
}
