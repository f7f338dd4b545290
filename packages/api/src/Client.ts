/**
 * The typed client, derived from the same contract as the server: every
 * endpoint is a method, payloads and answers are decoded by their schemas,
 * and problems arrive as typed errors (`catchTag("CursorExpired", ...)`).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { Api } from "./Api.ts"

/** A client of the API at `baseUrl`, sending `token` as the bearer credential when given. */
export const make = (options: { readonly baseUrl: string; readonly token?: string | undefined }) =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      options.token === undefined
        ? client
        : HttpClient.mapRequest(client, HttpClientRequest.bearerToken(options.token))
  })

/** The client's type. */
export type Client = Effect.Success<ReturnType<typeof make>>
