/**
 * Fastify 5, written the ordinary Fastify way: an `onRequest` hook for the
 * bearer token, JSON-schema validation of the query string and the body
 * (Ajv, with Fastify's default coercion; unknown parameters and properties
 * refused), response schemas compiled to serializers (fast-json-stringify),
 * and idempotency keys as a plugin would do them: checked in `preValidation`,
 * looked up in `preHandler` (a replay answered from there), the answer kept
 * in `onSend`; rate limiting as a plugin would do it, in a second `onRequest`
 * hook after authentication (it needs the tenant): the shared
 * rate-limiter-flexible limiters, the six `X-RateLimit-*` headers set on the
 * reply, so every answer carries them, a 429 problem with `Retry-After` when
 * refused. A request without a valid credential is counted per `request.ip`
 * in the authentication hook before its 401, which carries the headers too.
 * The body has its own Ajv without type coercion (the recipe of Fastify's
 * validation guide for different settings per part): Fastify's
 * default coerces `null` or `5` to a string, which the service refuses. `ajv`
 * is Fastify's own (8.x, installed with it), imported here, not declared.
 */
import { Ajv } from "ajv"
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify"
import {
  authenticate,
  canonicalQuery,
  createScope,
  createWorkspace,
  fingerprintOf,
  invalidKey,
  isProblem,
  limits,
  listPage,
  makePeer,
  type Problem,
  problemContentType,
  problemJson,
  rateLimitClassOf,
  type RateLimitOutcome,
  replayedHeader,
  serve,
  type TokenRecord,
  unauthenticated,
  workspaceCreateSchema,
  workspaceJson,
  type WorkspaceCreate,
  workspacesPath
} from "./shared.ts"

declare module "fastify" {
  interface FastifyRequest {
    member: TokenRecord | null
    reservation: string | null
  }
}

const { tenant, rows, idempotency, rateLimits } = makePeer()

/** The body's validator: Fastify's default settings but no coercion and no dropping of unknown properties. */
const bodyAjv = new Ajv({ coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false })

const workspaceSchema = {
  type: "object",
  properties: {
    workspace_id: { type: "string" },
    name: { type: "string" },
    description: { type: ["string", "null"] },
    created_at: { type: "string", format: "date-time" }
  },
  required: ["workspace_id", "name", "description", "created_at"]
} as const

const refuse = (reply: FastifyReply, refused: Problem) => reply.code(refused.status).type(problemContentType).send(problemJson(refused))

// Unknown query parameters and body properties answer 400 as in the service, instead of Fastify's default of dropping them.
const app = Fastify({ logger: false, ajv: { customOptions: { removeAdditional: false } } })
app.decorateRequest("member", null)
app.decorateRequest("reservation", null)

app.setErrorHandler((error: { validation?: unknown; statusCode?: number; code?: string; message: string }, _request, reply) => {
  if (error.validation !== undefined) return refuse(reply, { status: 400, code: "request/invalid", detail: error.message })
  if (error.code === "FST_ERR_CTP_INVALID_JSON_BODY" || error.code === "FST_ERR_CTP_EMPTY_JSON_BODY") {
    return refuse(reply, { status: 400, code: "request/malformed-json", detail: "The request body is not valid JSON" })
  }
  const status = error.statusCode ?? 500
  return refuse(reply, { status, code: status < 500 ? "request/invalid" : "internal", detail: error.message })
})

/** The outcome's headers on the reply (kept for whatever answers it); when refused, the 429 sent. Whether the request may go on. */
const limited = (reply: FastifyReply, outcome: RateLimitOutcome): boolean => {
  void reply.headers(outcome.headers)
  if (outcome.problem === undefined) return true
  void refuse(reply, outcome.problem)
  return false
}

/** The bearer token; without a valid one, the request counted per client address, then 401 (or 429). */
const authenticated = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
  const member = authenticate(tenant.tokens, request.headers.authorization)
  if (member !== undefined) {
    request.member = member
    return done()
  }
  rateLimits.client(request.ip).then((outcome) => {
    if (limited(reply, outcome)) void refuse(reply, unauthenticated)
  }, done)
}

/** The tenant's limits in the endpoint's class, after authentication. */
const rateLimited = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
  rateLimits.tenant(request.member!.tenantId, rateLimitClassOf(request.method)).then((outcome) => {
    if (limited(reply, outcome)) done()
  }, done)
}

app.get<{ Querystring: { limit?: number; cursor?: string } }>(workspacesPath, {
  schema: {
    querystring: {
      type: "object",
      properties: {
        limit: { type: "integer", minimum: limits.min, maximum: limits.max },
        cursor: { type: "string", minLength: 1, maxLength: 4096 }
      },
      additionalProperties: false
    },
    response: {
      200: {
        type: "object",
        properties: {
          data: { type: "array", items: workspaceSchema },
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
  onRequest: [authenticated, rateLimited]
}, async (request, reply) => {
  const page = await listPage(
    rows,
    request.query.limit ?? limits.default,
    canonicalQuery(request.query),
    request.member!.tenantId,
    request.query.cursor
  )
  return isProblem(page) ? refuse(reply, page) : page
})

app.post<{ Body: WorkspaceCreate; Headers: { "idempotency-key"?: string } }>(workspacesPath, {
  schema: { body: workspaceCreateSchema, response: { 201: workspaceSchema } },
  validatorCompiler: ({ schema }) => bodyAjv.compile(schema),
  onRequest: [authenticated, rateLimited],
  preValidation: (request, reply, done) => {
    const key = request.headers["idempotency-key"]
    const refused = key === undefined ? undefined : invalidKey(key)
    if (refused !== undefined) {
      void refuse(reply, refused)
      return
    }
    done()
  },
  preHandler: (request, reply, done) => {
    const key = request.headers["idempotency-key"]
    if (key === undefined) return done()
    const decision = idempotency.begin(request.member!.tenantId, createScope, key, fingerprintOf(request.body))
    if (decision._tag === "Refuse") {
      void refuse(reply, decision.problem)
      return
    }
    if (decision._tag === "Replay") {
      const { status, headers, body } = decision.response
      const { "content-type": contentType, ...rest } = headers
      void reply.code(status).headers(rest).header(replayedHeader, "true").type(contentType ?? "application/json").send(body)
      return
    }
    request.reservation = decision.reservation
    done()
  },
  onSend: (request, reply, payload, done) => {
    const reservation = request.reservation
    if (reservation !== null && typeof payload === "string") {
      request.reservation = null
      if (reply.statusCode < 500) {
        idempotency.complete(reservation, {
          status: reply.statusCode,
          headers: { "content-type": String(reply.getHeader("content-type")) },
          body: payload
        })
      } else {
        idempotency.release(reservation)
      }
    }
    done(null, payload)
  }
}, (request, reply) => {
  if (!request.member!.roles.includes("admin")) {
    return refuse(reply, { status: 403, code: "auth/forbidden", detail: "Admins only" })
  }
  void reply.code(201)
  return workspaceJson(createWorkspace(rows, request.member!, request.body))
})

await serve("fastify", app.server, async () => {
  await app.ready()
  return tenant.token
}, () => app.close())
