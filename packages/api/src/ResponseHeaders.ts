/**
 * The response headers the OpenAPI document declares besides the rate
 * limits' (`RateLimitHeaders`): the `X-Request-Id` every answer carries,
 * and, on the operations that send one, a header of their own (the session
 * cookie, a file's name).
 *
 * @since 0.1.0
 */

/** The header every answer carries: the request's id, which a problem's `request_id` repeats. */
export const requestId = "X-Request-Id"

/** A response header as the document declares it. */
export interface Header {
  readonly description: string
  readonly schema?: object | undefined
  readonly required?: boolean | undefined
}

/** Declares `X-Request-Id`, required, on every response of every operation (for `OpenApi.Transform`). */
export const documentRequestId = (spec: Record<string, any>): Record<string, any> => {
  const components = (spec.components ??= {})
  const headers = (components.headers ??= {})
  headers[requestId] = {
    required: true,
    schema: { type: "string", minLength: 1 },
    description: "The request's id (the one the caller sent, when it is fit to log; otherwise a fresh one): quote it when asking about the request"
  }
  for (const item of Object.values<Record<string, any>>(spec.paths ?? {})) {
    for (const operation of Object.values<any>(item)) {
      for (const response of Object.values<any>(operation?.responses ?? {})) {
        response.headers = { ...response.headers, [requestId]: { $ref: `#/components/headers/${requestId}` } }
      }
    }
  }
  return spec
}

/** An operation's transform (`OpenApi.Transform` on an endpoint) declaring `name` on its `status` response. */
export const declare = (status: number, name: string, header: Header) => (operation: Record<string, any>): Record<string, any> => {
  const response = operation.responses?.[status]
  if (response !== undefined) {
    response.headers = {
      ...response.headers,
      [name]: { required: header.required ?? true, schema: header.schema ?? { type: "string" }, description: header.description }
    }
  }
  return operation
}
