/**
 * Fastify 5, written the ordinary Fastify way: an `onRequest` hook for the
 * bearer token, JSON-schema validation of the query string (Ajv, with
 * Fastify's default coercion; unknown parameters refused), and a response schema compiled to a
 * serializer (fast-json-stringify).
 */
import Fastify from "fastify"
import { authenticate, canonicalQuery, firstPage, limits, makeTenant, makeWorkspaces, serve, type TokenRecord } from "./shared.ts"

declare module "fastify" {
  interface FastifyRequest {
    member: TokenRecord | null
  }
}

const tenant = makeTenant()
const rows = makeWorkspaces(tenant.tenantId)

const workspaceJson = {
  type: "object",
  properties: {
    workspace_id: { type: "string" },
    name: { type: "string" },
    description: { type: ["string", "null"] },
    created_at: { type: "string", format: "date-time" }
  },
  required: ["workspace_id", "name", "description", "created_at"]
} as const

// Unknown query parameters answer 400 as in the service, instead of Fastify's default of dropping them.
const app = Fastify({ logger: false, ajv: { customOptions: { removeAdditional: false } } })
app.decorateRequest("member", null)

app.get<{ Querystring: { limit?: number } }>("/v1/workspaces", {
  schema: {
    querystring: {
      type: "object",
      properties: { limit: { type: "integer", minimum: limits.min, maximum: limits.max } },
      additionalProperties: false
    },
    response: {
      200: {
        type: "object",
        properties: {
          data: { type: "array", items: workspaceJson },
          page: {
            type: "object",
            properties: {
              limit: { type: "integer" },
              next_cursor: { type: ["string", "null"] },
              has_more: { type: "boolean" }
            },
            required: ["limit", "next_cursor", "has_more"]
          }
        },
        required: ["data", "page"]
      }
    }
  },
  onRequest: (request, reply, done) => {
    const member = authenticate(tenant.tokens, request.headers.authorization)
    if (member === undefined) {
      void reply.code(401).type("application/problem+json").send(
        JSON.stringify({ type: "about:blank", status: 401, code: "auth/unauthenticated" })
      )
      return
    }
    request.member = member
    done()
  }
}, (request) => firstPage(rows, request.query.limit ?? limits.default, canonicalQuery(request.query), request.member!.tenantId))

await serve("fastify", app.server, async () => {
  await app.ready()
  return tenant.token
}, () => app.close())
