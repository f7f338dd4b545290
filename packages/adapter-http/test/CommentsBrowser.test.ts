/**
 * The report screen's comments as a conversation, in real headless
 * Chromium over the demo report (`ReportViewerFixture`): two people signed
 * in by their e-mailed links comment and reply to each other; each sees the
 * other by name (the API's `author.name`, decision 0024) and themselves as
 * "(you)"; Reply opens an inline form that takes focus, Escape closes it and
 * gives focus back, the posted reply is announced in the live region and
 * shows indented under the comment it answers; a reply has no Reply of its
 * own (one level, decision 0019); a deleted comment with replies stays as
 * "deleted" above them, and goes with the last of them. A member whose grant gives view only reads the
 * thread, with no Reply and no form. Axe clean, no console error, no
 * policy violation, nothing overflowing; screenshots at 1280 and 390 px
 * (`VIEWER_SHOTS=<dir>`).
 */
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Locator, Page } from "playwright-core"
import { consolePage } from "./ConsoleSignIn.ts"
import { setup } from "./ReportViewerFixture.ts"

const shots = process.env.VIEWER_SHOTS

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: true })
}

/** Waits until `locator` has the focus (a focus move follows the render it waits for). */
const focused = async (locator: Locator) => {
  const handle = await locator.elementHandle()
  await locator.page().waitForFunction((el) => el === document.activeElement, handle, { timeout: 5_000 })
}

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

/** The comment (its `<li>`) whose own text is `text`. */
const commentWith = (page: Page, text: string) =>
  page.locator("section.comments li").filter({ has: page.locator(":scope > p.comment-text", { hasText: text }) })

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("comment threads in the console, in headless Chromium"), () => {
  it.live("two people comment and reply by name; Reply by keyboard, announced; a tombstone keeps its replies; a view-only reader has no Reply and no form; 1280 and 390 px", () =>
    Effect.gen(function*() {
      const { mails, ok, reportId, server, workspaceId } = yield* setup
      const member = (email: string, name: string, actions: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const user = yield* ok("POST", "/v1/users", { email, name, roles: ["member"] })
          yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "user", principal_id: user.user_id, actions })
          return { email, mails, userId: user.user_id as string }
        })
      const ada = yield* member("ada@example.com", "Ada Lovelace", ["view", "comment"])
      const grace = yield* member("grace@example.com", "Grace Hopper", ["view", "comment"])
      const carol = yield* member("carol@example.com", "Carol Reader", ["view"])
      const browser: Browser = yield* Chromium.launch
      const reportPath = `${server.url}/w/${workspaceId}/reports/${reportId}`

      /** A page signed in as `who`, on the report, its comments panel loaded. */
      const open = async (who: typeof ada, width: number) => {
        const { context, page } = await consolePage(browser, server.url, who, { width })
        const errors = Chromium.watchErrorsExcept(page, () => false)
        const violations = await Chromium.watchPolicy(page)
        await page.goto(reportPath)
        const panel = page.getByRole("region", { name: "Comments" })
        await panel.getByRole("heading", { name: "Comments" }).waitFor({ timeout: 20_000 })
        return { context, page, panel, errors, violations }
      }

      // Ada starts the thread.
      yield* Effect.promise(async () => {
        const { context, panel, errors, violations } = await open(ada, 1280)
        await panel.getByText("No comments yet.").waitFor({ timeout: 20_000 })
        await panel.getByLabel("Add a comment").fill("Why is EU revenue down this month?")
        await panel.getByRole("button", { name: "Comment", exact: true }).click()
        await panel.getByText("Why is EU revenue down this month?").waitFor()
        await panel.getByRole("status").filter({ hasText: "Your comment was posted." }).waitFor()
        assert.include(await panel.locator(".comment-meta strong").first().innerText(), "Ada Lovelace (you)")
        assert.deepStrictEqual(errors(), [])
        assert.deepStrictEqual(await violations(), [])
        await context.close()
      })

      // Grace reads Ada by name and replies, by keyboard: Reply, the form focused, Escape cancels, Reply again, post.
      yield* Effect.promise(async () => {
        const { context, page, panel, errors, violations } = await open(grace, 1280)
        const thread = commentWith(page, "Why is EU revenue down this month?")
        await thread.waitFor({ timeout: 20_000 })
        assert.strictEqual(await thread.locator(".comment-meta strong").first().innerText(), "Ada Lovelace")
        const reply = panel.getByRole("button", { name: "Reply to Ada Lovelace" })
        await reply.focus()
        await page.keyboard.press("Enter")
        const field = panel.getByLabel("Your reply to Ada Lovelace")
        await field.waitFor()
        await focused(field)
        assert.strictEqual(await reply.getAttribute("aria-expanded"), "true")
        await page.keyboard.type("A large renewal moved to next month.")
        await page.keyboard.press("Escape")
        await field.waitFor({ state: "detached" })
        await focused(reply)
        await page.keyboard.press("Enter")
        await field.waitFor()
        assert.strictEqual(await field.inputValue(), "", "Escape discarded the draft")
        await field.fill("A large renewal moved to next month.")
        await shoot(page, "comments-reply-form-1280")
        await panel.getByRole("button", { name: "Post reply" }).click()
        await field.waitFor({ state: "detached" })
        await panel.getByRole("status").filter({ hasText: "Your reply to Ada Lovelace was posted." }).waitFor()
        const posted = thread.locator("ul.replies > li")
        await posted.getByText("A large renewal moved to next month.").waitFor()
        assert.include(await posted.locator(".comment-meta strong").innerText(), "Grace Hopper (you)")
        await focused(reply)
        assert.strictEqual(await posted.getByRole("button", { name: /Reply/ }).count(), 0, "one level of replies")
        assert.deepStrictEqual(await Axe.serious(page), [])
        assert.deepStrictEqual(errors(), [])
        assert.deepStrictEqual(await violations(), [])
        await context.close()
      })

      // Ada answers in the same thread: both names, in order, the replies indented under her comment.
      yield* Effect.promise(async () => {
        const { context, page, panel, errors, violations } = await open(ada, 1280)
        const thread = commentWith(page, "Why is EU revenue down this month?")
        await thread.locator("ul.replies").waitFor({ timeout: 20_000 })
        await panel.getByRole("button", { name: "Reply to Ada Lovelace" }).click()
        await panel.getByLabel("Your reply to Ada Lovelace").fill("Thanks, Grace: then March makes up for it.")
        await panel.getByRole("button", { name: "Post reply" }).click()
        await thread.locator("ul.replies > li").nth(1).waitFor()
        assert.deepStrictEqual(await thread.locator("ul.replies > li .comment-meta strong").allInnerTexts(), ["Grace Hopper", "Ada Lovelace (you)"])
        const [top, indented] = await Promise.all([thread.boundingBox(), thread.locator("ul.replies > li").first().boundingBox()])
        assert.isAbove(indented!.x, top!.x + 10, "replies are indented")
        assert.isAtMost(await overflow(page), 0)
        await shoot(page, "comments-thread-1280")
        // She deletes her first comment: it has replies, so it stays as "deleted" above them, with no name and no Reply.
        await thread.getByRole("button", { name: "Delete" }).first().click()
        await thread.getByRole("button", { name: "Delete it" }).click()
        await panel.getByText("This comment was deleted.").waitFor()
        const tombstone = page.locator("section.comments ul.comments-list > li").first()
        assert.strictEqual(await tombstone.locator(":scope > .comment-meta strong").count(), 0)
        assert.strictEqual(await tombstone.getByRole("button", { name: /Reply/ }).count(), 0)
        assert.strictEqual(await tombstone.locator("ul.replies > li").count(), 2, "its replies stay")
        assert.deepStrictEqual(await Axe.serious(page), [])
        // She withdraws her reply too: Grace's still holds the tombstone up.
        const hers = commentWith(page, "Thanks, Grace: then March makes up for it.")
        await hers.getByRole("button", { name: "Delete" }).click()
        await hers.getByRole("button", { name: "Delete it" }).click()
        await hers.waitFor({ state: "detached" })
        assert.strictEqual(await tombstone.locator("ul.replies > li").count(), 1)
        assert.deepStrictEqual(errors(), [])
        assert.deepStrictEqual(await violations(), [])
        await context.close()
      })

      // Carol (view only) on a phone: the thread by name, no Reply, no form.
      yield* Effect.promise(async () => {
        const { context, page, panel, errors, violations } = await open(carol, 390)
        await panel.getByText("A large renewal moved to next month.").waitFor({ timeout: 20_000 })
        assert.include(await panel.innerText(), "Grace Hopper")
        assert.include(await panel.innerText(), "This comment was deleted.")
        assert.strictEqual(await panel.getByRole("button", { name: /Reply/ }).count(), 0)
        assert.strictEqual(await panel.locator("form, textarea").count(), 0)
        assert.strictEqual(await panel.getByText("not add to them").count(), 0, "nothing to refuse: she was offered nothing")
        assert.strictEqual(await page.getByRole("button", { name: /^Export/ }).count(), 0, "no download granted: no Export either")
        assert.isAtMost(await overflow(page), 0)
        assert.deepStrictEqual(await Axe.serious(page), [])
        await shoot(page, "comments-view-only-390")
        assert.deepStrictEqual(errors(), [])
        assert.deepStrictEqual(await violations(), [])
        await context.close()
      })

      // Grace on a phone, the reply form open: it fits.
      yield* Effect.promise(async () => {
        const { context, page, panel } = await open(grace, 390)
        // The tombstone takes no reply; Grace withdraws the last reply under it, and the tombstone goes with it.
        const hers = commentWith(page, "A large renewal moved to next month.")
        await hers.waitFor({ timeout: 20_000 })
        await hers.getByRole("button", { name: "Delete" }).click()
        await hers.getByRole("button", { name: "Delete it" }).click()
        await panel.getByText("No comments yet.").waitFor()
        // She starts a thread of her own and opens its Reply.
        await panel.getByLabel("Add a comment").fill("Worth a note on the dashboard too.")
        await panel.getByRole("button", { name: "Comment", exact: true }).click()
        await panel.getByRole("button", { name: "Reply to Grace Hopper" }).click()
        await panel.getByLabel("Your reply to Grace Hopper").waitFor()
        assert.isAtMost(await overflow(page), 0)
        await panel.getByLabel("Your reply to Grace Hopper").scrollIntoViewIfNeeded()
        await shoot(page, "comments-reply-form-390")
        await context.close()
      })
    }).pipe(Effect.scoped), { timeout: 180_000 })
})
