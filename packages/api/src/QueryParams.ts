/**
 * Query parameters shared by list endpoints, with the OpenAPI schema each
 * really has. Query strings arrive as text, so the generator would document
 * `limit` as a patterned string; `documentQueryParams` restores the integer
 * type, range and default.
 *
 * @since 0.1.0
 */
import { Pagination } from "@analytics/core"
import { Schema } from "effect"

/** `limit`: an integer from 1 to 500; 50 when absent. */
export const limit = Schema.optionalKey(Schema.FiniteFromString.pipe(Schema.decodeTo(Pagination.Limit)))

/** `cursor`: the previous page's `next_cursor`, unchanged. */
export const cursor = Schema.optionalKey(Pagination.CursorParam)

/** The query parameters of a page: `limit` and `cursor`. */
export const page = { limit, cursor }

/** `sort`: one of the given fields, `-` first for descending. */
export const sort = (fields: ReadonlyArray<string>) =>
  Schema.optionalKey(
    Schema.Literals(fields.flatMap((f) => [f, `-${f}`])).annotate({
      description: `Sort field, prefixed with - for descending; ties are broken by id ascending`
    })
  )

/** The OpenAPI schema of each shared query parameter. */
const documented: Record<string, Record<string, unknown>> = {
  limit: {
    type: "integer",
    minimum: Pagination.limits.min,
    maximum: Pagination.limits.max,
    default: Pagination.limits.default,
    description: "Page size, an integer from 1 to 500"
  },
  cursor: {
    type: "string",
    minLength: 1,
    maxLength: 4096,
    description:
      "Opaque base64url cursor copied unchanged from the previous page's page.next_cursor; omit it for the first page. Valid for 24 hours, bound to this endpoint and query string."
  }
}

/** Rewrites the generated OpenAPI document so shared query parameters show their real types. */
export const documentQueryParams = (spec: Record<string, any>): Record<string, any> => {
  for (const path of Object.values(spec.paths ?? {}) as Array<Record<string, any>>) {
    for (const operation of Object.values(path)) {
      for (const parameter of operation?.parameters ?? []) {
        if (parameter.in !== "query") continue
        const schema = documented[parameter.name]
        if (schema !== undefined) {
          parameter.schema = schema
          parameter.description = schema.description
        }
        if (parameter.name === "sort" && parameter.schema?.default === undefined) {
          parameter.schema = { ...parameter.schema, default: "-created_at" }
        }
      }
    }
  }
  return spec
}
