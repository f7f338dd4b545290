/**
 * Signing a browser in to the console for real, through the session
 * endpoints, before the test's pages open: an admin with their API token
 * (`POST /api/session/token`), anyone by the e-mailed link (`POST
 * /api/session/sign-in-links`, the link read from the mail the service
 * sent, `POST /api/session`). The session cookie lands in the browser
 * context, so each of its pages is signed in, as after the sign-in screen.
 * The sign-in screen itself is walked through in ConsoleBrowser.test.ts.
 *
 * @since 0.1.0
 */
import type { Mailer } from "@analytics/core"
import type { APIRequestContext } from "playwright-core"

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
