/**
 * Share tokens: an embed token verifies with the key that signed it, for
 * its audience, until it expires; `alg: none`, another key, another
 * audience, a tampered payload and a link session used as an embed token
 * are refused.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import { SignJWT, UnsecuredJWT } from "jose"
import * as ShareTokens from "../src/sharing/ShareTokens.ts"

const key = new Uint8Array(32).fill(7)
const tokens = ShareTokens.make(key)
const now = 1_830_000_000_000
const claims = {
  grantId: "0190c0de-0000-7000-8000-000000000001",
  tenantId: "0190c0de-0000-7000-8000-000000000002",
  resource: { type: "report", id: "0190c0de-0000-7000-8000-000000000003" },
  params: { region: "EU" },
  attributes: { email: "viewer@example.com" }
}

const refusal = (result: Result.Result<unknown, ShareTokens.TokenRefusal>) => Result.isFailure(result) ? result.failure : "accepted"

describe("ShareTokens", () => {
  it.effect("an embed token carries its claims until it expires", () =>
    Effect.gen(function*() {
      const token = yield* tokens.signEmbed(claims, now, 600)
      const verified = yield* tokens.verifyEmbed(token, now + 599_000)
      assert.deepStrictEqual(verified, Result.succeed({ ...claims, expiresAt: new Date(now + 600_000) }))
      assert.strictEqual(refusal(yield* tokens.verifyEmbed(token, now + 600_000)), "expired")
    }))

  it.effect("alg none, another key, another audience, a tampered payload and a session are refused", () =>
    Effect.gen(function*() {
      const payload = { tid: claims.tenantId, resource: claims.resource, params: {}, attributes: {} }
      const unsigned = new UnsecuredJWT(payload).setAudience("analytics:embed").setSubject(claims.grantId).setExpirationTime(now / 1000 + 60).encode()
      assert.strictEqual(refusal(yield* tokens.verifyEmbed(unsigned, now)), "invalid")
      const otherKey = yield* ShareTokens.make(new Uint8Array(32).fill(8)).signEmbed(claims, now, 600)
      assert.strictEqual(refusal(yield* tokens.verifyEmbed(otherKey, now)), "invalid")
      const otherAudience = yield* Effect.promise(() =>
        new SignJWT(payload).setProtectedHeader({ alg: "HS256" }).setAudience("someone-else").setSubject(claims.grantId).setExpirationTime(now / 1000 + 60).sign(key)
      )
      assert.strictEqual(refusal(yield* tokens.verifyEmbed(otherAudience, now)), "invalid")
      // The payload changed (another region), the signature kept.
      const [header, body, signature] = (yield* tokens.signEmbed(claims, now, 600)).split(".")
      const decoded = JSON.parse(new TextDecoder().decode(Result.getOrThrow(Base64Url.decode(body!))))
      const tampered = [header, Base64Url.encode(JSON.stringify({ ...decoded, params: { region: "US" } })), signature].join(".")
      assert.strictEqual(refusal(yield* tokens.verifyEmbed(tampered, now)), "invalid")
      const session = yield* tokens.signSession({ grantId: claims.grantId, passwordVersion: "abc" }, now)
      assert.strictEqual(refusal(yield* tokens.verifyEmbed(session, now)), "invalid")
      assert.deepStrictEqual(yield* tokens.verifySession(session, now), Result.succeed({ grantId: claims.grantId, passwordVersion: "abc" }))
      assert.strictEqual(refusal(yield* tokens.verifyEmbed("not.a.token", now)), "invalid")
    }))

  it.effect("only the canonical spelling verifies: a signature with `=` appended, a respelled last character or anything appended is refused", () =>
    Effect.gen(function*() {
      const embed = yield* tokens.signEmbed(claims, now, 600)
      const session = yield* tokens.signSession({ grantId: claims.grantId, passwordVersion: "abc" }, now)
      assert.isTrue(Result.isSuccess(yield* tokens.verifyEmbed(embed, now)))
      for (const [token, verify] of [[embed, tokens.verifyEmbed], [session, tokens.verifySession]] as const) {
        const [header, payload, signature] = token.split(".") as [string, string, string]
        // HMAC-SHA256: 32 bytes in 43 characters, whose last carries 2 unused bits.
        const respelled = signature.slice(0, -1) + alphabet[alphabet.indexOf(signature[42]!) ^ 1]
        assert.deepStrictEqual(Base64Url.decode(respelled), Base64Url.decode(signature), "the same bytes")
        for (
          const variant of [
            `${token}=`,
            `${token}==`,
            `${header}.${payload}.${respelled}`,
            `${header}=.${payload}.${signature}`,
            `${header}.${payload}=.${signature}`,
            `${token}.`,
            `${token} `,
            `${token}%3D`
          ]
        ) assert.strictEqual(refusal(yield* verify(variant, now)), "invalid", variant)
      }
    }))
})

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
