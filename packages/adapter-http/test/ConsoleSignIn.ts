/**
 * Signing a browser in to the console for real, through the session
 * endpoints, before the test's pages open: an admin with their API token
 * (`POST /api/session/token`), anyone by the e-mailed link (`POST
 * /api/session/sign-in-links`, the link read from the mail the service
 * sent, `POST /api/session`). The session cookie lands in the browser
 * context, so each of its pages is signed in, as after the sign-in screen.
 * The sign-in screen itself is walked through in ConsoleBrowser.test.ts.
 * `consolePage` opens such a signed-in page at a width, as the browser
 * tests start.
 *
 * @since 0.1.0
 */
import type { Mailer } from "@analytics/core"
import type { APIRequestContext, Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core"

/** Who signs in: an admin's API token, or an e-mail address whose link is read from `mails`. */
export type Who =
  | { readonly token: string; readonly email?: undefined }
  | { readonly email: string; readonly mails: ReadonlyArray<Mailer.Mail> }

const ok = async (answer: { ok(): boolean; status(): number; text(): Promise<string> }, what: string) => {
  if (!answer.ok()) throw new Error(`${what}: ${answer.status()} ${await answer.text()}`)
}

/** The newest sign-in link mailed to `email`: its token. */
export const linkTokenFor = (mails: ReadonlyArray<Mailer.Mail>, email: string): string => {
  const mail = [...mails].reverse().find((m) => m.to.includes(email))
  const token = mail === undefined ? undefined : /\/sign-in#token=([\w-]+)/.exec(mail.text ?? "")?.[1]
  if (token === undefined) throw new Error(`no sign-in link mailed to ${email}`)
  return token
}

/** Signs `request`'s browser context in at the console served at `base` (its origin and prefix). */
export const signIn = async (request: APIRequestContext, base: string, who: Who): Promise<void> => {
  if (who.email === undefined) {
    return ok(await request.post(`${base}/api/session/token`, { data: { api_token: who.token } }), "token sign-in")
  }
  await ok(await request.post(`${base}/api/session/sign-in-links`, { data: { email: who.email } }), "sign-in link")
  await ok(await request.post(`${base}/api/session`, { data: { link_token: linkTokenFor(who.mails, who.email) } }), "link sign-in")
}

/** How `consolePage` opens its context: the viewport's size, what the browser may do there, and any other context option. */
export interface ConsolePageOptions extends Omit<BrowserContextOptions, "viewport" | "permissions"> {
  /** The viewport's width; 1280 unless said (390 for a phone). */
  readonly width?: number
  /** The viewport's height; 900 unless said. */
  readonly height?: number
  /** Permissions granted at the console's origin before signing in (the clipboard's: `clipboard-read`, `clipboard-write`). */
  readonly permissions?: ReadonlyArray<string>
}

/** A signed-in browser context and its first page. */
export interface ConsolePage {
  readonly context: BrowserContext
  readonly page: Page
}

/**
 * A new context of `browser` at the viewport asked (1280 × 900 unless
 * said), signed in as `who` at the console served at `base`, and a page in
 * it (nothing opened yet: watch it, then `goto`). Close the context when done.
 */
export const consolePage = async (browser: Browser, base: string, who: Who, options: ConsolePageOptions = {}): Promise<ConsolePage> => {
  const { width = 1280, height = 900, permissions, ...contextOptions } = options
  const context = await browser.newContext({ ...contextOptions, viewport: { width, height } })
  if (permissions !== undefined) await context.grantPermissions([...permissions], { origin: base })
  await signIn(context.request, base, who)
  return { context, page: await context.newPage() }
}
