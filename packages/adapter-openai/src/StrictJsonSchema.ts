/**
 * JSON Schema in the subset "strict" structured output accepts (OpenAI's
 * `strict: true` tools and `json_schema` response formats, which vLLM,
 * Ollama and llama.cpp also follow): every property required (optional
 * ones nullable instead), no additional properties, and only the keywords
 * of that subset. The result is looser than the Effect Schema it came
 * from (lengths and tuples are dropped or widened); the Effect Schema
 * stays the judge of what the model returns.
 *
 * @since 0.1.0
 */
import type { Schema } from "effect"
import { Schema as S } from "effect"

/** A JSON Schema node, as plain JSON. */
export type JsonSchema = { readonly [key: string]: unknown }

/** Keywords strict mode accepts; anything else (maxLength, prefixItems, oneOf…) is dropped or rewritten. */
const kept = new Set([
  "type",
  "enum",
  "const",
  "$ref",
  "description",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems"
])

const isObject = (value: unknown): value is JsonSchema => typeof value === "object" && value !== null && !Array.isArray(value)

const nullable = (schema: JsonSchema): JsonSchema =>
  schema.type === "null"
    ? schema
    : Array.isArray(schema.anyOf) && Object.keys(schema).length === 1
    ? { anyOf: [...schema.anyOf, { type: "null" }] }
    : { anyOf: [schema, { type: "null" }] }

/** One node in strict form. */
const strictNode = (node: JsonSchema): JsonSchema => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) if (kept.has(key)) out[key] = value
  const anyOf = node.anyOf ?? node.oneOf
  if (Array.isArray(anyOf)) out.anyOf = anyOf.map((branch) => strictNode(branch as JsonSchema))
  if (Array.isArray(node.allOf) && node.allOf.length === 1) Object.assign(out, strictNode(node.allOf[0] as JsonSchema))
  if (isObject(node.items)) out.items = strictNode(node.items)
  // A tuple becomes an array of any of its elements' types, its length kept.
  if (Array.isArray(node.prefixItems)) {
    const distinct = [...new Map(node.prefixItems.map((item) => [JSON.stringify(item), strictNode(item as JsonSchema)])).values()]
    out.items = distinct.length === 1 ? distinct[0] : { anyOf: distinct }
  }
  if (node.type === "object" || isObject(node.properties)) {
    const properties = isObject(node.properties) ? node.properties : {}
    const required = new Set(Array.isArray(node.required) ? node.required as ReadonlyArray<string> : [])
    out.type = "object"
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, schema]) => {
        const strict = strictNode(schema as JsonSchema)
        return [name, required.has(name) ? strict : nullable(strict)]
      })
    )
    out.required = Object.keys(properties)
    out.additionalProperties = false
  }
  return out
}

/**
 * The strict JSON Schema of an Effect Schema whose values are JSON (no
 * transformation): its definitions under `$defs`, optional keys nullable.
 */
export const make = (schema: Schema.Top): JsonSchema => {
  const document = S.toJsonSchemaDocument(schema, { onExcessProperty: "error" })
  const definitions = Object.entries(document.definitions ?? {})
  return {
    ...strictNode(document.schema as JsonSchema),
    ...(definitions.length === 0 ? {} : {
      $defs: Object.fromEntries(definitions.map(([name, definition]) => [name, strictNode(definition as JsonSchema)]))
    })
  }
}

/**
 * Undoes the nulls strict output puts for absent optional keys: drops
 * every object key whose value is null. Only for schemas where null is
 * never a value (the query and the visual have none).
 */
export const dropNulls = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(dropNulls)
  if (isObject(value)) {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, dropNulls(v)]))
  }
  return value
}
