/**
 * A tenant's branding: the name, logo and accent colour its share pages
 * (the report, the password form, the refusals) are drawn with, as a brand
 * would send them (decision 0014). Each field is optional: what is not set
 * is the service's own.
 *
 * The logo is a `data:` URL of a PNG, JPEG or WebP of at most 48 KB,
 * checked by its bytes: an SVG can carry script and links, so it is
 * refused in words, as is anything else that does not start as its type
 * says.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Schema } from "effect"
import { type Actor, type Recording, recorded } from "../audit/AuditLog.ts"
import type { StoreError } from "../platform/Errors.ts"
import { Name, type TenantId } from "../tenancy/Tenant.ts"

/** The most bytes a logo may have, decoded. */
export const maxLogoBytes = 48 * 1024

const logoPrefix = /^data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]+={0,2})$/

/** The image types a logo may be, by the bytes they start with. */
const signatures: Readonly<Record<string, (bytes: Uint8Array) => boolean>> = {
  "image/png": (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47,
  "image/jpeg": (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  "image/webp": (b) =>
    String.fromCharCode(...b.subarray(0, 4)) === "RIFF" && String.fromCharCode(...b.subarray(8, 12)) === "WEBP"
}

/** Why a logo is refused, in words; `undefined` when it is accepted. */
export const logoProblem = (text: string): string | undefined => {
  if (/^data:image\/svg/i.test(text)) {
    return "SVG logos are not accepted (an SVG can carry script and links): send a PNG, JPEG or WebP as a data: URL"
  }
  const match = logoPrefix.exec(text)
  if (match === null) return "Expected the logo as a data: URL, such as data:image/png;base64,…"
  const [, type, data] = match
  const check = signatures[type!]
  if (check === undefined) return `A logo is a PNG, JPEG or WebP; ${type} is not accepted`
  // Base64 is 4 characters per 3 bytes: the decoded size is known before decoding.
  const bytes = Math.floor(data!.length * 3 / 4) - (data!.endsWith("==") ? 2 : data!.endsWith("=") ? 1 : 0)
  if (bytes > maxLogoBytes) return `The logo is ${Math.ceil(bytes / 1024)} KB; at most 48 KB is accepted`
  let decoded: Uint8Array
  try {
    decoded = Uint8Array.from(atob(data!.slice(0, 24)), (c) => c.charCodeAt(0))
  } catch {
    return "The logo's base64 cannot be read"
  }
  return check(decoded) ? undefined : `The logo's bytes are not a ${type!.slice(6).toUpperCase()} image`
}

/** A logo: a PNG, JPEG or WebP `data:` URL of at most 48 KB. */
export const Logo = Schema.String.check(Schema.makeFilter((text) => logoProblem(text) ?? true)).annotate({
  description: "The logo as a data: URL (data:image/png;base64,…): PNG, JPEG or WebP, at most 48 KB decoded; SVG is refused"
})

/** An accent colour: `#rrggbb`. */
export const AccentColor = Schema.String.check(
  Schema.isPattern(/^#[0-9a-fA-F]{6}$/, { message: "Expected a colour as #rrggbb, such as #0f766e" })
).annotate({ description: "The accent colour of share pages, #rrggbb" })

/** A tenant's branding as stored and shown; `null` is the service's own. */
export const Branding = Schema.Struct({
  name: Schema.NullOr(Name),
  logo: Schema.NullOr(Logo),
  accent_color: Schema.NullOr(AccentColor),
  updated_at: Schema.NullOr(Schema.Date)
})
/** A tenant's branding. */
export type Branding = typeof Branding.Type

/** What a change sends: each field given is set (`null` clears it), the others are kept. */
export const BrandingPatch = Schema.Struct({
  name: Schema.optionalKey(Schema.NullOr(Name)),
  logo: Schema.optionalKey(Schema.NullOr(Logo)),
  accent_color: Schema.optionalKey(Schema.NullOr(AccentColor))
})
/** What a change sends. */
export type BrandingPatch = typeof BrandingPatch.Type

/** The branding of a tenant that set none. */
export const unset: Branding = { name: null, logo: null, accent_color: null, updated_at: null }

/** Port: each tenant's branding. */
export class BrandingStore extends Context.Service<BrandingStore, {
  readonly find: (tenantId: TenantId) => Effect.Effect<Branding | undefined, StoreError>
  /** Stores the tenant's branding (in the caller's transaction, if any), replacing what it had. */
  readonly save: (tenantId: TenantId, branding: Branding) => Effect.Effect<void, StoreError>
}>()("@analytics/core/BrandingStore") {}

/** The tenant's branding (unset fields `null`). */
export const get = (tenantId: TenantId): Effect.Effect<Branding, StoreError, BrandingStore> =>
  Effect.map(Effect.flatMap(BrandingStore, (store) => store.find(tenantId)), (found) => found ?? unset)

/** Changes the tenant's branding, audited (`branding.updated`, without the logo's bytes). */
export const update = (
  tenantId: TenantId,
  patch: BrandingPatch,
  by: Actor
): Effect.Effect<Branding, StoreError, BrandingStore | Recording> =>
  recorded(
    tenantId,
    Effect.gen(function*() {
      const store = yield* BrandingStore
      const current = (yield* store.find(tenantId)) ?? unset
      const next: Branding = { ...current, ...patch, updated_at: new Date(yield* Clock.currentTimeMillis) }
      yield* store.save(tenantId, next)
      return next
    }),
    (next) => ({
      workspace_id: null,
      action: "branding.updated",
      actor: by,
      target: { type: "branding", id: tenantId },
      detail: { name: next.name, accent_color: next.accent_color, logo: next.logo === null ? null : "set", changed: Object.keys(patch) }
    })
  )
