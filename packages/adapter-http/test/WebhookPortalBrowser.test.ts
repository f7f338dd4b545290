/**
 * A webhook's own page as the Svix portal has it (decision 0010), in real
 * headless Chromium against a real HTTPS receiver on loopback (the
 * fixture of WebhooksBrowser.test.ts): send a test event from the page, its
 * delivery appears and is delivered; the success rate over 24 hours and 7
 * days counts its attempts (a 500 then a 200: "50% succeeded"); each
 * attempt's request and response headers, as sent and answered; edit the
 * URL, description and events (a refused URL said in words, nothing
 * changed); reveal the signing secret (recorded in the audit log), copy,
 * hide; rotate after a confirmation (the new secret shown); disable,
 * enable. 390 px fits; axe clean throughout; no console error; a member is
 * refused. Screenshots at 1280 and 390 px (`VIEWER_SHOTS=<dir>`).
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { HttpsTransport } from "@analytics/adapter-webhook-https"
import { EventPublisher, Mailer, Workers } from "@analytics/core"
import { Axe, Chromium } from "@analytics/testing/browser"
import { start } from "./TestServer.ts"
import { Receiver } from "@analytics/testing/webhooks"
import * as Viewer from "@analytics/viewer/assets"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { ViewerAssets } from "../src/routes/ViewerAssets.ts"
import { consolePage } from "./ConsoleSignIn.ts"

const shots = process.env.VIEWER_SHOTS

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: true })
}

/** How far the page is wider than its viewport (0 when nothing sticks out). */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

/** The run's certificates (made by vitest's global setup). */
const certificates = () => {
  const dir = process.env.TEST_TLS_DIR ?? ""
  return { key: readFileSync(join(dir, "server.key")), cert: readFileSync(join(dir, "server.pem")), ca: readFileSync(join(dir, "ca.pem"), "utf8") }
}

/** A server with the console, the delivery worker beside it, an HTTPS receiver, a tenant with an admin and a member. */
const setup = Effect.gen(function*() {
  const mails = Mailer.makeMemory()
  const server = yield* start(MemoryStores.layer, { viewerAssets: ViewerAssets.layer(Viewer.load()), mailer: Layer.succeed(Mailer.Mailer, mails.mailer) })
  const tls = certificates()
  const receiver = yield* Effect.acquireRelease(Effect.promise(() => Receiver.start({ tls })), (r) => Effect.promise(() => r.close()))
  const services = yield* Layer.build(Layer.mergeAll(
    HttpsTransport.layer({ allowPrivate: true, ca: [tls.ca] }),
    Mailer.Mailer.layerMemory,
    EventPublisher.EventPublisher.layer
  ).pipe(Layer.provide(Layer.succeedContext(server.stores))))
  yield* Workers.start({ exports: false, webhooks: {}, scheduler: false }).pipe(
    Effect.provideContext(services),
    Effect.provideContext(server.stores)
  )
  const { token: admin } = yield* server.tenant("scale")
  const ok = (method: string, path: string, body?: unknown, token = admin) =>
    Effect.runPromise(Effect.map(server.request(method, path, { token, body }), (r) => {
      assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
      return r.body
    }))
  const user = yield* Effect.promise(() => ok("POST", "/v1/users", { email: "max@example.com", name: "Max Member", roles: ["member"] }))
  const member = (yield* Effect.promise(() => ok("POST", `/v1/users/${user.user_id}/tokens`))).token as string
  return { server, receiver, admin, member, memberEmail: user.email as string, mails: mails.sent, ok }
})

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("a webhook's page in headless Chromium"), () => {
  it.live("test from the page → success rate → each attempt's headers → edit → reveal (audited) → rotate → disable; 390 px; a member is refused", () =>
    Effect.gen(function*() {
      const { admin, mails, member, memberEmail, ok, receiver, server } = yield* setup
      const hook = yield* Effect.promise(() =>
        ok("POST", "/v1/webhooks", { url: receiver.url("/orders"), description: "Order system", events: ["alert.fire", "export.succeeded"] })
      )
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, { token: admin }, { permissions: ["clipboard-read", "clipboard-write"] })
        // The refused edit below is answered 400: expected, once.
        const errors = Chromium.watchErrorsExcept(page, (path, status) => path === `/v1/webhooks/${hook.webhook_id}` && status === 400)

        // The page: state, actions, an empty success rate, the secret hidden.
        await page.goto(`${server.url}/webhooks/${hook.webhook_id}`)
        await page.getByRole("heading", { name: receiver.url("/orders"), level: 1 }).waitFor()
        const rate = page.getByRole("region", { name: "Success rate" })
        await rate.getByText("No attempts").first().waitFor()
        assert.strictEqual(await rate.getByText("No attempts").count(), 2)
        const secretCard = page.getByRole("region", { name: "Signing secret" })
        assert.notInclude(await page.content(), hook.secret, "the secret is not on the page until revealed")
        assert.deepStrictEqual(await Axe.serious(page), [], "webhook page")
        await shoot(page, "webhook-portal-1280")

        // A test event from the page; the receiver answers 500 (with its own headers), then 200 at the retry.
        let calls = 0
        receiver.answer(() => ++calls === 1
          ? { status: 500, headers: { "x-receiver-trace": "trace-500", "content-type": "text/plain" }, body: "busy" }
          : { status: 200, headers: { "x-receiver-trace": "trace-200" } })
        await page.getByLabel("Test event type").selectOption("alert.fire")
        await page.getByRole("button", { name: "Send test event" }).click()
        await page.getByText("A test alert.fire event is on its way: its delivery is listed below.").waitFor()
        const delivery = page.locator("li.delivery").first()
        await delivery.getByText("Delivered", { exact: true }).waitFor({ timeout: 20_000 })
        const [first, second] = await receiver.waitFor(2)
        // The rate is read again once the delivery settles: one attempt failed, one succeeded.
        await rate.getByText("50% succeeded").first().waitFor({ timeout: 10_000 })
        assert.strictEqual(await rate.getByText("1 succeeded, 1 failed").count(), 2)

        // Each attempt's headers: what was sent (as the receiver got it) and what it answered.
        const attempts = delivery.locator("ol.attempts > li")
        assert.strictEqual(await attempts.count(), 2)
        for (const [i, got, trace] of [[0, first!, "trace-500"], [1, second!, "trace-200"]] as const) {
          const attempt = attempts.nth(i)
          await attempt.getByText("Headers", { exact: true }).click()
          const sent = await attempt.locator("dl.headers").first().innerText()
          for (const name of ["x-service-event", "x-service-delivery", "x-service-signature", "user-agent"]) {
            assert.include(sent, name)
            assert.include(sent, got.headers[name] as string, name)
          }
          const answered = await attempt.locator("dl.headers").nth(1).innerText()
          assert.include(answered, "x-receiver-trace")
          assert.include(answered, trace)
        }
        assert.include(await attempts.first().innerText(), "Request headers")
        assert.include(await attempts.first().innerText(), "Response headers")
        assert.deepStrictEqual(await Axe.serious(page), [], "attempt headers")
        await shoot(page, "webhook-portal-headers-1280")

        // Edit: no event is said in words; a refused URL is the service's problem in words, nothing changed; then saved.
        await page.getByRole("button", { name: "Edit", exact: true }).click()
        const form = page.getByRole("region", { name: "Edit webhook" })
        await form.getByRole("checkbox", { name: /alert\.fire/ }).waitFor()
        assert.isTrue(await form.getByRole("checkbox", { name: /export\.succeeded/ }).isChecked())
        assert.strictEqual(await form.getByLabel("HTTPS address").inputValue(), receiver.url("/orders"))
        await form.getByRole("checkbox", { name: /alert\.fire/ }).uncheck()
        await form.getByRole("checkbox", { name: /export\.succeeded/ }).uncheck()
        await form.getByRole("button", { name: "Save changes" }).click()
        await form.getByText("Choose at least one event type.").waitFor()
        await form.getByRole("checkbox", { name: /dataset\.refresh\.failed/ }).check()
        await form.getByLabel("HTTPS address").fill("https://user:pass@hooks.example.com/in")
        await form.getByRole("button", { name: "Save changes" }).click()
        await form.locator(".problem").first().waitFor()
        // What is wrong with the URL, beside it, and the field marked.
        await form.locator("#edit-url-error").getByText("A webhook URL carries no user name or password").waitFor()
        assert.strictEqual(await form.getByLabel("HTTPS address").getAttribute("aria-invalid"), "true")
        assert.deepStrictEqual(await Axe.serious(page), [], "edit, refused")
        await shoot(page, "webhook-portal-edit-refused-1280")
        assert.strictEqual((await ok("GET", `/v1/webhooks/${hook.webhook_id}`)).url, receiver.url("/orders"), "nothing changed")
        await form.getByLabel("HTTPS address").fill(receiver.url("/v2/orders"))
        await form.getByLabel("Description").fill("Order system v2")
        await form.getByRole("button", { name: "Save changes" }).click()
        await page.getByText("Changes saved.").waitFor()
        await page.getByRole("heading", { name: receiver.url("/v2/orders"), level: 1 }).waitFor()
        assert.strictEqual(await form.count(), 0, "the form closes")
        const edited = await ok("GET", `/v1/webhooks/${hook.webhook_id}`)
        assert.deepStrictEqual([edited.url, edited.description, edited.events], [receiver.url("/v2/orders"), "Order system v2", ["dataset.refresh.failed"]])
        assert.include(await page.locator("main").innerText(), "Order system v2")

        // Reveal the secret: the current one, copied, hidden again; the read is in the audit log.
        await secretCard.getByRole("button", { name: "Reveal secret" }).click()
        const field = secretCard.getByLabel("Current signing secret")
        await field.waitFor()
        assert.strictEqual(await field.inputValue(), hook.secret)
        await secretCard.getByRole("button", { name: "Copy", exact: true }).click()
        await secretCard.getByText("Copied.").waitFor()
        assert.strictEqual(await page.evaluate(() => navigator.clipboard.readText()), hook.secret)
        assert.deepStrictEqual(await Axe.serious(page), [], "secret revealed")
        await shoot(page, "webhook-portal-secret-1280")
        const [entry] = (await ok("GET", "/v1/audit-log?action=webhook.secret_revealed")).data
        assert.deepInclude(entry.target, { type: "webhook", id: hook.webhook_id })
        await secretCard.getByRole("button", { name: "Hide secret" }).click()
        await field.waitFor({ state: "detached" })
        assert.notInclude(await page.content(), hook.secret)

        // Rotate, after a confirmation ("Cancel" changes nothing): the new secret is shown.
        await page.getByRole("button", { name: "Rotate secret" }).click()
        const dialog = page.getByRole("dialog", { name: "Rotate this webhook's secret?" })
        await dialog.getByRole("button", { name: "Cancel" }).click()
        await dialog.waitFor({ state: "detached" })
        assert.isNull((await ok("GET", `/v1/webhooks/${hook.webhook_id}`)).previous_secret_expires_at, "not rotated")
        await page.getByRole("button", { name: "Rotate secret" }).click()
        await dialog.getByRole("button", { name: "Rotate secret" }).click()
        const rotated = secretCard.getByLabel("New signing secret")
        await rotated.waitFor()
        const fresh = await rotated.inputValue()
        assert.match(fresh, /^whsec_/)
        assert.notStrictEqual(fresh, hook.secret)
        assert.strictEqual((await ok("GET", `/v1/webhooks/${hook.webhook_id}/secret`)).secret, fresh)
        await page.getByText("The old secret is accepted until").waitFor()
        await secretCard.getByRole("button", { name: "Hide secret" }).click()

        // Disable: no test sends; enable again.
        await page.getByRole("button", { name: "Disable", exact: true }).click()
        await page.getByText(`${receiver.url("/v2/orders")} is disabled`).waitFor()
        assert.strictEqual(await page.getByRole("button", { name: "Send test event" }).count(), 0)
        assert.isFalse((await ok("GET", `/v1/webhooks/${hook.webhook_id}`)).enabled)
        await page.getByRole("button", { name: "Enable", exact: true }).click()
        await page.getByRole("button", { name: "Send test event" }).waitFor()
        assert.deepStrictEqual(await Axe.serious(page), [], "enabled again")
        await page.emulateMedia({ colorScheme: "dark" })
        assert.deepStrictEqual(await Axe.serious(page), [], "dark")
        await shoot(page, "webhook-portal-1280-dark")
        assert.deepStrictEqual(errors(), [])
        await context.close()

        // 390 px: the page, an attempt's headers and a revealed secret fit the screen.
        const { context: narrow, page: small } = await consolePage(browser, server.url, { token: admin }, { width: 390, height: 844 })
        const smallErrors = Chromium.watchErrors(small)
        await small.goto(`${server.url}/webhooks/${hook.webhook_id}`)
        const smallAttempt = small.locator("li.delivery ol.attempts > li").first()
        await smallAttempt.waitFor()
        await smallAttempt.getByText("Headers", { exact: true }).click()
        await small.getByRole("region", { name: "Signing secret" }).getByRole("button", { name: "Reveal secret" }).click()
        await small.getByLabel("Current signing secret").waitFor()
        await small.getByRole("region", { name: "Success rate" }).getByText("50% succeeded").first().waitFor()
        assert.isAtMost(await overflow(small), 0, "the page fits 390 px")
        assert.deepStrictEqual(await Axe.serious(small), [], "webhook page at 390 px")
        await shoot(small, "webhook-portal-390")
        assert.deepStrictEqual(smallErrors, [])
        await narrow.close()

        // A member: not theirs, and the API refuses the secret.
        const { context: memberContext, page: memberPage } = await consolePage(browser, server.url, { email: memberEmail, mails })
        await memberPage.goto(`${server.url}/webhooks/${hook.webhook_id}`)
        await memberPage.getByRole("heading", { name: "Not available to you", level: 1 }).waitFor()
        assert.deepStrictEqual(await Axe.serious(memberPage), [], "member")
        await memberContext.close()
        const refused = await Effect.runPromise(server.request("GET", `/v1/webhooks/${hook.webhook_id}/secret`, { token: member }))
        assert.strictEqual(refused.status, 403)
      })
    }).pipe(Effect.scoped), 240_000)
})
