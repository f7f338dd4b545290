/**
 * The console's webhooks screens in real headless Chromium, against a real
 * HTTPS receiver on loopback (`Receiver.start` with the test run's
 * certificate; the delivery worker's transport lets loopback through,
 * `allowPrivate`, and trusts the run's test CA, `ca`): register (the
 * secret shown, copied, revealable again), send a test event, its delivery and attempt
 * appear as delivered (HTTP 200), redeliver, a second attempt appears, the
 * receiver got both with valid signatures; recover a range; rotate (the
 * old secret's 24 hours in words); disable, enable; a receiver answering
 * 410 disables it (the reason shown), enabled again its failed delivery is
 * recovered by time range and delivered; delete after a
 * confirmation. A member sees no Webhooks navigation and the deep links
 * say "not available to you". Axe clean on each screen, no console error,
 * screenshots at 1280 and 390 px (`VIEWER_SHOTS=<dir>`).
 *
 * Signed in through the session endpoints (`ConsoleSignIn`): the admin
 * with their API token, the member by their e-mailed link.
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
import Stripe from "stripe"
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

/** The run's certificates (made by vitest's global setup): the receiver's key and certificate, and the CA that signed them. */
const certificates = () => {
  const dir = process.env.TEST_TLS_DIR ?? ""
  return { key: readFileSync(join(dir, "server.key")), cert: readFileSync(join(dir, "server.pem")), ca: readFileSync(join(dir, "ca.pem"), "utf8") }
}

/** A server with the console, the delivery worker beside it, an HTTPS receiver, a tenant with an admin and a member. */
const setup = Effect.gen(function*() {
  // Mails are kept, so the member signs in by their e-mailed link.
  const mails = Mailer.makeMemory()
  const server = yield* start(MemoryStores.layer, { viewerAssets: ViewerAssets.layer(Viewer.load()), mailer: Layer.succeed(Mailer.Mailer, mails.mailer) })
  const tls = certificates()
  const receiver = yield* Effect.acquireRelease(Effect.promise(() => Receiver.start({ tls })), (r) => Effect.promise(() => r.close()))
  // The delivery worker as a host runs it (`Workers.start`) for the test's scope; its services built in that scope, as the loops outlive the call.
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
    Effect.map(server.request(method, path, { token, body }), (r) => {
      assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
      return r.body
    })
  const user = yield* ok("POST", "/v1/users", { email: "max@example.com", name: "Max Member", roles: ["member"] })
  const member = (yield* ok("POST", `/v1/users/${user.user_id}/tokens`)).token as string
  const workspaceId = (yield* ok("POST", "/v1/workspaces", { name: "Sales" })).workspace_id as string
  return { server, receiver, admin, member, memberEmail: user.email as string, mails: mails.sent, ok, workspaceId }
})

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("the console's webhooks in headless Chromium"), () => {
  it.live("register → secret once → test event → delivered (HTTP 200) → redeliver → a second attempt; both signed; rotate (24 h overlap); disable; a 410 disables it, recovered by range; delete; 390 px; a member is refused", () =>
    Effect.gen(function*() {
      const { admin, mails, member, memberEmail, ok, receiver, server, workspaceId } = yield* setup
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, { token: admin }, { permissions: ["clipboard-read", "clipboard-write"] })
        const errors = Chromium.watchErrors(page)

        // The admin's navigation has Webhooks; the screen starts empty, with the form.
        await page.goto(`${server.url}/`)
        const nav = page.getByRole("navigation", { name: "Main" })
        await nav.getByRole("link", { name: "Webhooks" }).click()
        await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor()
        await page.getByText("No webhooks yet.").waitFor()
        await page.getByRole("checkbox", { name: /alert\.fire/ }).waitFor()
        assert.strictEqual(await nav.getByRole("link", { name: "Webhooks" }).getAttribute("aria-current"), "page")
        assert.include(await page.locator("#register").innerText(), "An alert fires: a measure crossed its threshold.")
        assert.deepStrictEqual(await Axe.serious(page), [], "webhooks, empty")
        await shoot(page, "webhooks-empty-1280")

        // No event chosen: said in words, nothing registered.
        await page.getByLabel("HTTPS address").fill(receiver.url())
        await page.getByRole("button", { name: "Register webhook" }).click()
        await page.getByText("Choose at least one event type.").waitFor()

        // Register: the secret is shown, with a copy button and words saying where an admin reveals it again.
        await page.getByLabel("Description (optional)").fill("Order system")
        await page.getByRole("checkbox", { name: /alert\.fire/ }).check()
        await page.getByRole("checkbox", { name: /export\.succeeded/ }).check()
        await page.getByRole("button", { name: "Register webhook" }).click()
        await page.getByText("Webhook registered. Copy its signing secret now; a tenant admin can reveal it again on the webhook's page (each reveal is recorded in the audit log).").waitFor()
        const secret = await page.locator("#webhook-secret").inputValue()
        assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/)
        await page.getByRole("button", { name: "Copy", exact: true }).click()
        await page.getByText("Copied.").waitFor()
        assert.strictEqual(await page.evaluate(() => navigator.clipboard.readText()), secret)
        const row = page.locator("li.webhook", { hasText: receiver.url() })
        assert.include(await row.innerText(), "Enabled")
        assert.include(await row.innerText(), "alert.fire, export.succeeded")
        assert.deepStrictEqual(await Axe.serious(page), [], "secret shown")
        await shoot(page, "webhooks-secret-1280")
        await page.getByRole("button", { name: "I have copied it" }).click()
        await page.locator("#webhook-secret").waitFor({ state: "detached" })
        await page.reload()
        await row.waitFor()
        assert.notInclude(await page.content(), secret, "the secret is not shown again")
        const [hook] = (await Effect.runPromise(ok("GET", "/v1/webhooks"))).data
        assert.notProperty(hook, "secret")

        // A test event: the receiver gets it; its delivery and attempt appear, delivered with HTTP 200.
        await row.getByLabel("Test event type").selectOption("alert.fire")
        await row.getByRole("button", { name: `Send test event: ${receiver.url()}` }).click()
        await page.getByText(`A test alert.fire event is on its way to ${receiver.url()}.`).waitFor()
        await receiver.waitFor(1)
        await page.getByRole("link", { name: "See its delivery" }).click()
        await page.getByRole("heading", { name: receiver.url(), level: 1 }).waitFor()
        const delivery = page.locator("li.delivery").first()
        await delivery.getByText("Delivered").waitFor({ timeout: 10_000 })
        const attempts = delivery.locator("ol.attempts > li")
        assert.strictEqual(await attempts.count(), 1)
        assert.include(await attempts.first().innerText(), "HTTP 200")
        assert.match(await attempts.first().innerText(), /\d+ ms/)
        assert.include(await delivery.innerText(), "alert.fire")
        assert.deepStrictEqual(await Axe.serious(page), [], "webhook, delivered")
        await shoot(page, "webhook-delivered-1280")

        // Redeliver: the same delivery gets a second attempt, delivered again.
        await delivery.getByRole("button", { name: /^Redeliver: alert\.fire, / }).click()
        await page.getByText("The alert.fire event is sent again").waitFor()
        await receiver.waitFor(2)
        await attempts.nth(1).getByText("HTTP 200").waitFor({ timeout: 10_000 })
        await delivery.getByText("Delivered").waitFor({ timeout: 10_000 })
        assert.strictEqual(await page.locator("li.delivery").count(), 1, "a redelivery is the same delivery")
        assert.deepStrictEqual(await Axe.serious(page), [], "webhook, redelivered")
        await shoot(page, "webhook-redelivered-1280")

        // The receiver got both, each signed with the secret shown once, same delivery and event.
        assert.strictEqual(receiver.received.length, 2)
        for (const got of receiver.received) {
          assert.isTrue(Stripe.webhooks.signature!.verifyHeader(got.body, got.headers["x-service-signature"] as string, secret, 300))
          assert.strictEqual(got.headers["x-service-event"], "alert.fire")
        }
        assert.strictEqual(receiver.received[0]!.headers["x-service-delivery"], receiver.received[1]!.headers["x-service-delivery"])
        assert.strictEqual(JSON.parse(receiver.received[0]!.body).id, JSON.parse(receiver.received[1]!.body).id)

        // Recover a range: nothing failed in the last hour, said in words.
        const hourAgo = await page.evaluate(() => {
          const d = new Date(Date.now() - 3_600_000)
          d.setMinutes(d.getMinutes() - d.getTimezoneOffset())
          return d.toISOString().slice(0, 16)
        })
        await page.getByLabel("From").fill(hourAgo)
        await page.getByRole("button", { name: "Recover" }).click()
        await page.getByText("No failed deliveries in that range.").waitFor()
        assert.deepStrictEqual(await Axe.serious(page), [], "recover")

        // Rotate: a new secret once, and until when the old one is accepted (24 hours).
        await page.getByRole("link", { name: "All webhooks" }).click()
        await row.getByRole("button", { name: `Rotate secret: ${receiver.url()}` }).click()
        await page.getByRole("dialog", { name: "Rotate this webhook's secret?" }).getByRole("button", { name: "Rotate secret" }).click()
        await page.getByText("Secret rotated. Copy the new secret now; a tenant admin can reveal it again on the webhook's page (each reveal is recorded in the audit log).").waitFor()
        const rotated = await page.locator("#webhook-secret").inputValue()
        assert.notStrictEqual(rotated, secret)
        const until = (await Effect.runPromise(ok("GET", `/v1/webhooks/${hook.webhook_id}`))).previous_secret_expires_at as string
        assert.approximately(new Date(until).getTime() - Date.now(), 24 * 3_600_000, 60_000)
        const untilWords = await page.evaluate((at) => new Date(at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }), until)
        const overlap = await page.locator("section.secret").innerText()
        assert.include(overlap, `The old secret is accepted until ${untilWords} (in 24 hours).`)
        assert.include(await row.innerText(), `The old secret is accepted until ${untilWords}`)
        assert.deepStrictEqual(await Axe.serious(page), [], "rotated")
        await shoot(page, "webhooks-rotated-1280")
        await page.getByRole("button", { name: "I have copied it" }).click()

        // Disable, enable.
        await row.getByRole("button", { name: `Disable: ${receiver.url()}` }).click()
        await row.getByText("Disabled", { exact: true }).waitFor()
        assert.strictEqual(await row.getByRole("button", { name: /^Send test event/ }).count(), 0, "no test send to a disabled webhook")
        await row.getByRole("button", { name: `Enable: ${receiver.url()}` }).click()
        await row.getByText("Enabled", { exact: true }).waitFor()

        // The receiver says it is gone (410): the webhook is disabled after failures, with the reason in words.
        receiver.answer({ status: 410, headers: { "content-type": "application/json" }, body: "{\"error\":\"gone\",\"detail\":\"This endpoint was retired on 1 November; use /v2/hooks.\"}" })
        await row.getByRole("button", { name: `Send test event: ${receiver.url()}` }).click()
        await receiver.waitFor(3)
        for (let i = 0; i < 40 && !(await row.innerText()).includes("Disabled after failures"); i++) {
          await page.waitForTimeout(250)
          await page.reload()
          await row.waitFor()
        }
        assert.include(await row.innerText(), "Disabled after failures")
        const reason = await row.locator(".reason").innerText()
        assert.match(reason, /^Why: The receiver answered 410 at /)
        assert.notMatch(reason, /\d{4}-\d{2}-\d{2}T/, "the instant in the reader's words, not ISO 8601")
        assert.strictEqual(await row.getByRole("button", { name: /^Send test event/ }).count(), 0)
        assert.deepStrictEqual(await Axe.serious(page), [], "disabled after failures")
        await shoot(page, "webhooks-failed-1280")
        await page.emulateMedia({ colorScheme: "dark" })
        assert.deepStrictEqual(await Axe.serious(page), [], "disabled after failures, dark")
        await shoot(page, "webhooks-failed-1280-dark")
        await page.emulateMedia({ colorScheme: "light" })

        // Enabled again, the failed delivery is recovered by its time range, and delivered.
        receiver.answer({ status: 200 })
        await row.getByRole("button", { name: `Enable: ${receiver.url()}` }).click()
        await row.getByText("Enabled", { exact: true }).waitFor()
        await row.getByRole("link", { name: receiver.url() }).click()
        const failed = page.locator("li.delivery").first()
        await failed.getByText("Failed", { exact: true }).waitFor()
        assert.include(await failed.locator("ol.attempts > li").first().innerText(), "HTTP 410")
        // The receiver's answer, as it came (its start), with the attempt.
        const answered = failed.locator("ol.attempts > li").first()
        await answered.getByText("What the receiver answered").click()
        assert.include(await answered.locator("details.answer pre").innerText(), "This endpoint was retired on 1 November")
        assert.deepStrictEqual(await Axe.serious(page), [], "an attempt's answer")
        await shoot(page, "webhook-answer-1280")
        const answeredAt = page.url()
        const deliveries = (count: number) => page.waitForFunction((n) => document.querySelectorAll("li.delivery").length === n, count)
        await deliveries(2)
        await page.getByLabel("Show").selectOption("failed")
        await deliveries(1)
        assert.include(await failed.innerText(), "Failed")
        assert.deepStrictEqual(await Axe.serious(page), [], "failed deliveries")
        await shoot(page, "webhook-failed-1280")
        await page.getByLabel("From").fill(hourAgo)
        await page.getByRole("button", { name: "Recover" }).click()
        await page.getByText("1 failed delivery is sent again.").waitFor()
        await page.getByLabel("Show").selectOption("")
        await deliveries(2)
        await receiver.waitFor(4)
        await failed.getByText("Delivered", { exact: true }).waitFor({ timeout: 10_000 })
        assert.include(await failed.locator("ol.attempts > li").nth(1).innerText(), "HTTP 200")
        assert.strictEqual(await page.locator("li.delivery").count(), 2)
        await shoot(page, "webhook-recovered-1280")
        await page.getByRole("link", { name: "All webhooks" }).click()
        await row.waitFor()

        // 390 px: the list and the webhook fit the screen.
        const { context: narrow, page: small } = await consolePage(browser, server.url, { token: admin }, { width: 390, height: 844 })
        const smallErrors = Chromium.watchErrors(small)
        await small.goto(`${server.url}/webhooks`)
        await small.locator("li.webhook").waitFor()
        assert.isAtMost(await overflow(small), 0, "the list fits 390 px")
        assert.deepStrictEqual(await Axe.serious(small), [], "webhooks at 390 px")
        await shoot(small, "webhooks-390")
        await small.goto(`${server.url}/webhooks/${hook.webhook_id}`)
        await small.locator("li.delivery ol.attempts > li").nth(1).waitFor()
        await small.locator("li.delivery").first().getByText("What was sent").click()
        assert.include(await small.locator("li.delivery details.event pre").first().innerText(), '"type": "alert.fire"')
        assert.isAtMost(await overflow(small), 0, "the webhook fits 390 px")
        assert.deepStrictEqual(await Axe.serious(small), [], "webhook at 390 px")
        await shoot(small, "webhook-390")
        // The receiver's answer to the failed attempt, opened at 390 px: it wraps within the screen.
        await small.goto(answeredAt)
        const smallAnswer = small.locator("li.delivery details.answer").first()
        await smallAnswer.locator("summary").click()
        assert.include(await smallAnswer.locator("pre").innerText(), "use /v2/hooks")
        assert.isAtMost(await overflow(small), 0, "the answer fits 390 px")
        assert.deepStrictEqual(await Axe.serious(small), [], "an attempt's answer at 390 px")
        await shoot(small, "webhook-answer-390")
        assert.deepStrictEqual(smallErrors, [])
        await narrow.close()

        // A webhook for one workspace's events.
        const salesUrl = "https://hooks.example.com/sales"
        await page.getByLabel("HTTPS address").fill(salesUrl)
        await page.getByLabel("From which workspaces").selectOption({ label: "Sales" })
        await page.getByRole("checkbox", { name: /dataset\.refresh\.failed/ }).check()
        await page.getByRole("button", { name: "Register webhook" }).click()
        await page.getByText("Webhook registered. Copy its signing secret now; a tenant admin can reveal it again on the webhook's page (each reveal is recorded in the audit log).").waitFor()
        await page.getByRole("button", { name: "I have copied it" }).click()
        const sales = page.locator("li.webhook", { hasText: salesUrl })
        assert.include(await sales.innerText(), "dataset.refresh.failed · from the workspace Sales")
        const scoped = (await Effect.runPromise(ok("GET", "/v1/webhooks"))).data.find((w: any) => w.url === salesUrl)
        assert.strictEqual(scoped.workspace_id, workspaceId)

        // Delete, after a confirmation; "Keep it" (Escape) keeps it.
        await row.getByRole("button", { name: `Delete: ${receiver.url()}` }).click()
        const confirm = page.locator("dialog.analytics-confirm")
        await confirm.getByRole("heading", { name: "Delete this webhook?" }).waitFor()
        assert.include(await confirm.innerText(), `${receiver.url()} gets no more events`)
        assert.deepStrictEqual(await Axe.serious(page), [], "delete confirmation")
        await shoot(page, "webhooks-delete-confirm-1280")
        await page.keyboard.press("Escape")
        await confirm.waitFor({ state: "detached" })
        await row.waitFor()
        await row.getByRole("button", { name: `Delete: ${receiver.url()}` }).click()
        await confirm.getByRole("button", { name: "Delete webhook" }).click()
        await page.getByText(`Webhook ${receiver.url()} deleted.`).waitFor()
        await row.waitFor({ state: "detached" })
        assert.strictEqual(await page.locator("li.webhook").count(), 1)
        const gone = await Effect.runPromise(server.request("GET", `/v1/webhooks/${hook.webhook_id}`, { token: admin }))
        assert.strictEqual(gone.status, 404)
        assert.deepStrictEqual(errors, [])
        await context.close()

        // A member: no Webhooks in the navigation; the deep links say it is not theirs.
        const { context: memberContext, page: memberPage } = await consolePage(browser, server.url, { email: memberEmail, mails })
        const memberErrors = Chromium.watchErrors(memberPage)
        await memberPage.goto(`${server.url}/`)
        await memberPage.getByRole("heading", { name: "Workspaces", level: 1 }).waitFor()
        const memberNav = memberPage.getByRole("navigation", { name: "Main" })
        await memberNav.getByRole("link", { name: "Workspaces" }).waitFor()
        assert.strictEqual(await memberNav.getByRole("link", { name: "Webhooks" }).count(), 0)
        for (const path of ["webhooks", `webhooks/${hook.webhook_id}`]) {
          await memberPage.goto(`${server.url}/${path}`)
          await memberPage.getByRole("heading", { name: "Not available to you", level: 1 }).waitFor()
          assert.include(await memberPage.locator("main").innerText(), "Webhooks are managed by tenant admins.")
          assert.deepStrictEqual(await Axe.serious(memberPage), [], `member at ${path}`)
        }
        await shoot(memberPage, "webhooks-member-1280")
        assert.deepStrictEqual(memberErrors, [])
        // The API agrees with the screen: a member's token is refused.
        const refused = await Effect.runPromise(server.request("GET", "/v1/webhooks", { token: member }))
        assert.strictEqual(refused.status, 403)
        await memberContext.close()
      })
    }).pipe(Effect.scoped), 120_000)
})
