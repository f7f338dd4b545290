/**
 * Which URLs a webhook may be registered with (decision 0010): absolute
 * `https://` URLs naming a host, nothing else. Where the host resolves to
 * is checked at delivery time (SSRF guard), not here: DNS answers change.
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import { type Issue, TaggedFailure } from "../platform/Errors.ts"

/** A URL refused at registration, with the reason in words. */
export class WebhookUrlRefused extends TaggedFailure("WebhookUrlRefused")<{
  /** `scheme`: not https (`webhook/scheme-not-allowed`); `invalid`: not a usable URL. */
  readonly reason: "scheme" | "invalid"
  readonly message: string
}> {
  /** `webhook/scheme-not-allowed` for a URL that is not https, else `request/invalid`. */
  get code(): "webhook/scheme-not-allowed" | "request/invalid" {
    return this.reason === "scheme" ? "webhook/scheme-not-allowed" : "request/invalid"
  }
  /** The sentence its problem says: the message for a scheme, else the issue says what is wrong. */
  get problemDetail(): string {
    return this.reason === "scheme" ? this.message : "The request failed validation; see errors"
  }
  /** The `url` given. */
  get issue(): Issue {
    return { path: ["body", "url"], message: this.message }
  }
}

const refused = (reason: "scheme" | "invalid", message: string) => Result.fail(new WebhookUrlRefused({ reason, message }))

/** The longest URL accepted (a receiver's URL, not a data channel). */
export const maxLength = 2_048

/** Checks a URL for registration; the normalised URL when it is accepted. */
export const parse = (input: string): Result.Result<string, WebhookUrlRefused> => {
  if (input.length > maxLength) return refused("invalid", `A webhook URL has at most ${maxLength} characters`)
  // Control characters and spaces are stripped by WHATWG parsing; refuse them rather than guess.
  if (/[\u0000-\u0020\u007f-\u009f]/.test(input)) return refused("invalid", "A webhook URL has no spaces or control characters")
  // Without a scheme of its own (`//host/path`, `host/path`) a URL is not absolute: say which scheme is wanted.
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(input)?.[1]?.toLowerCase()
  if (scheme !== "https") {
    return refused("scheme", scheme === undefined
      ? "A webhook URL must be absolute and start with https://"
      : `Only https:// webhook URLs are accepted, not ${scheme}:`)
  }
  if (!/^https:\/\/[^/\\]/i.test(input)) return refused("invalid", "An https URL starts with https:// and a host")
  let url: URL
  try {
    url = new URL(input)
  } catch {
    return refused("invalid", "Not a valid URL")
  }
  if (url.protocol !== "https:") return refused("scheme", "Only https:// webhook URLs are accepted")
  if (url.username !== "" || url.password !== "") {
    return refused("invalid", "A webhook URL carries no user name or password (put credentials in the receiver's check of the signature)")
  }
  if (url.hostname === "") return refused("invalid", "A webhook URL names a host")
  if (url.hash !== "") return refused("invalid", "A webhook URL has no #fragment (it is never sent)")
  return Result.succeed(url.href)
}
