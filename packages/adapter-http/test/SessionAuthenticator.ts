/**
 * An embedding app's authenticator, as the dataset and question tests use
 * it: its own session tokens (`session:<user>:<region>`) become members of
 * the tenant `tenantOf()` names, bound to that region; other tokens go to
 * the built-in authenticator (with the test server's operator token).
 */
import { Authenticator, Principal, type Tenant } from "@analytics/core"
import { Effect, Layer, Option, Redacted } from "effect"
import { operatorToken } from "@analytics/testing/http"

/** The authenticator, reading the tenant at each request (the test provisions it after the server starts). */
export const sessions = (tenantOf: () => string) =>
  Layer.effect(
    Authenticator.Authenticator,
    Effect.map(Authenticator.Authenticator, (builtIn) =>
      Authenticator.Authenticator.of({
        authenticate: (credential) => {
          const [kind, user, region] = Redacted.value(credential).split(":")
          return kind !== "session"
            ? builtIn.authenticate(credential)
            : Effect.succeed(new Principal.Member({ tenantId: tenantOf() as Tenant.TenantId, userId: user!, email: null, roles: ["member"], attributes: { region: region! } }))
        }
      }))
  ).pipe(Layer.provide(Authenticator.layerTokens({ operatorToken: Option.some(Redacted.make(operatorToken)) })))
