/**
 * `PUT /v1/datasets/{id}/data` in the OpenAPI document. The upload's body
 * is a file (CSV or Parquet) streamed to disk, not JSON, so the route is
 * served beside the HttpApi contract (adapter-http's `DatasetUploads`); its
 * entry is written here, from the contract's own answers for datasets
 * (the dataset's JSON, the declared problems), so it says what the route
 * does: its query parameters, its media types and its refusals (decision
 * 0013, "Upload" and "Recovering from a file that does not fit").
 *
 * @since 0.1.0
 */
import { ProblemCode } from "@analytics/core"
import * as RateLimitHeaders from "./RateLimitHeaders.ts"
import * as ResponseHeaders from "./ResponseHeaders.ts"

/** The path of the upload, as the OpenAPI document writes it. */
export const path = "/v1/datasets/{id}/data"

type Json = Record<string, any>

/** A problem the contract does not declare as a class (the route's own), as its body's schema. */
const problemOf = (code: ProblemCode.ProblemCode): Json => ({
  type: "object",
  properties: {
    type: { type: "string", enum: [ProblemCode.typeUri(code)] },
    status: { type: "number", enum: [ProblemCode.catalogue[code].status] },
    title: { type: "string" },
    detail: { type: "string" },
    code: { type: "string", enum: [code] },
    request_id: { type: "string" }
  },
  required: ["type", "status", "title", "code"]
})

const problemJson = (schema: Json) => ({ "application/problem+json": { schema } })

/**
 * The document with the upload's operation added. Its answers are the
 * dataset refresh's (the same dataset JSON and problems: 400 for a file
 * that cannot be read or a model that does not fit it, 403, 404), plus the
 * upload's own 409, 413 and 415; every one with the rate-limit headers and
 * `X-Request-Id`.
 */
export const withUpload = <D extends { readonly paths: Json }>(document: D): D => {
  const refresh = document.paths["/v1/datasets/{id}/refresh"]?.post
  if (refresh === undefined) return document
  const { responses } = refresh
  const operation = {
    tags: ["datasets"],
    operationId: "datasets.upload",
    description: "Loads an upload dataset's rows from a CSV or Parquet file, replacing the previous ones atomically (readers see the old rows until the new ones are in). " +
      "A CSV file is read strictly first: a refusal (400 dataset/source-invalid) names its line and field in `errors`, never a value. " +
      "A file whose columns the model does not fit is refused (400 dataset/model-invalid) listing every member that does not fit in `mismatches` and the file's columns in `file_columns`; the rows stay as they were. " +
      "`model=suggested` replaces the model with the one suggested from the file's columns (each column a dimension, a row count, a sum of each numeric column), " +
      "keeping the row-level security policies; a policy that filters on a dimension the file no longer gives is refused (400 dataset/model-invalid) and nothing changes. Tenant admins only.",
    parameters: [
      { name: "id", in: "path", required: true, schema: { type: "string" } },
      {
        name: "model",
        in: "query",
        required: false,
        schema: { type: "string", enum: ["keep", "suggested"], default: "keep" },
        description: "keep: the model must fit the file's columns; suggested: the model is replaced by the one suggested from them, its row-level security policies kept"
      },
      {
        name: "types",
        in: "query",
        required: false,
        schema: { type: "string" },
        description: "A JSON object of column name to string, number, boolean or time: columns read as that type instead of the inferred one"
      }
    ],
    security: refresh.security,
    requestBody: {
      required: true,
      content: {
        "text/csv": { schema: { type: "string" } },
        "application/vnd.apache.parquet": { schema: { type: "string", format: "binary" } }
      }
    },
    responses: {
      "200": responses["200"],
      "400": responses["400"],
      "401": responses["401"],
      "403": responses["403"],
      "404": responses["404"],
      "409": { description: ProblemCode.catalogue["dataset/not-uploadable"].title, content: problemJson(problemOf("dataset/not-uploadable")) },
      "413": { description: ProblemCode.catalogue["dataset/upload-too-large"].title, content: problemJson(problemOf("dataset/upload-too-large")) },
      "415": { description: "Send the rows as text/csv or application/vnd.apache.parquet", content: problemJson(problemOf("request/unsupported-media-type")) },
      ...(responses["429"] === undefined ? {} : { "429": responses["429"] }),
      ...(responses["503"] === undefined ? {} : { "503": responses["503"] })
    }
  }
  // The rate-limit headers and the request id on its own answers too, as on every operation's.
  return ResponseHeaders.documentRequestId(RateLimitHeaders.document({ ...document, paths: { ...document.paths, [path]: { put: operation } } })) as D
}
