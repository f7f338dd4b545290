/**
 * The example run as a program (`node src/main.ts`), as an operator runs
 * it, on PostgreSQL when `DATABASE_URL` is set and PGlite in a temporary
 * directory otherwise, with real parts only: a throwaway SMTP server and an
 * HTTPS webhook receiver whose certificate authority (made by the test
 * kits with the `openssl` CLI) the program trusts through `NODE_EXTRA_CA_CERTS`, as an
 * operator trusts a private CA. Besides the embedding contract: a PDF
 * export runs in the app's process and downloads, a webhook arrives signed,
 * a schedule's send-now mails its file, and the console opens under the
 * mount path in Chromium.
 */
import { WebhookSignature } from "@analytics/core"
import { call, embeddingContract, provisionTenant, serve } from "@analytics/testing/embedding"
import { Receiver } from "@analytics/testing/webhooks"
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as https from "node:https"
import { type AddressInfo, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { chromium } from "playwright-core"
import { SMTPServer } from "smtp-server"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url))
const chromiumPath = "/usr/bin/chromium"
const work = mkdtempSync(join(tmpdir(), "express-full-"))
const cleanups: Array<() => Promise<void> | void> = [() => rmSync(work, { recursive: true, force: true })]
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer().once("error", reject)
    server.listen(0, () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

/** A throwaway CA and a certificate it signs for `localhost` and 127.0.0.1 (the test kits make them with the `openssl` CLI). */
const certificates = (dir: string) => {
  Receiver.writeCertificates(dir)
  return { ca: join(dir, "ca.pem"), key: readFileSync(join(dir, "server.key")), cert: readFileSync(join(dir, "server.pem")) }
}

/** Resolves when `check` holds, polling every 200 ms; rejects after `timeoutMillis`. */
const eventually = async <A>(what: string, get: () => Promise<A> | A, check: (a: A) => boolean, timeoutMillis = 30_000): Promise<A> => {
  const deadline = Date.now() + timeoutMillis
  for (;;) {
    const value = await get()
    if (check(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

// The HTTPS receiver and the SMTP server, up before the app starts (it is given their addresses).
const tls = certificates(work)
const webhooks: Array<{ headers: Record<string, string | Array<string> | undefined>; body: string }> = []
const receiver = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
  let body = ""
  req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk)).on("end", () => {
    webhooks.push({ headers: req.headers, body })
    res.writeHead(200).end()
  })
})
const mails: Array<{ to: Array<string>; raw: string }> = []
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  onData(stream, session, callback) {
    let raw = ""
    stream.setEncoding("utf8").on("data", (chunk: string) => (raw += chunk)).on("end", () => {
      mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw })
      callback()
    })
  }
})
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  cleanups.push(() => new Promise<void>((resolve) => receiver.close(() => resolve())))
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve))
  cleanups.push(() => new Promise<void>((resolve) => smtp.close(() => resolve())))
})

/** Starts `node src/main.ts` with the host's variables and waits for it to listen; its output is kept for failures. */
const program = async (_port: number, options: { readonly operatorToken: string }) => {
  const port = await freePort()
  const child = spawn(process.execPath, [main], {
    env: {
      PATH: process.env["PATH"] ?? "",
      HOME: process.env["HOME"] ?? "",
      PORT: String(port),
      PUBLIC_BASE_URL: `http://localhost:${port}/analytics`,
      // PostgreSQL when the run names one; else PGlite in a directory of the run.
      ...(process.env["DATABASE_URL"] === undefined ? {} : { DATABASE_URL: process.env["DATABASE_URL"] }),
      ANALYTICS_DATA_DIR: join(work, "data"),
      ANALYTICS_OPERATOR_TOKEN: options.operatorToken,
      SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
      MAIL_FROM: "Analytics <analytics@example.com>",
      // The receiver is on loopback, and its certificate is of this run's CA.
      ANALYTICS_WEBHOOK_ALLOW_PRIVATE: "true",
      NODE_EXTRA_CA_CERTS: tls.ca,
      LOG_LEVEL: "warn"
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the example did not start:\n${output}`)), 50_000)
    const read = (chunk: Buffer) => {
      output += chunk
      if (output.includes("Listening on")) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout.on("data", read)
    child.stderr.on("data", read)
    child.once("exit", (code) => reject(new Error(`the example exited (${code}):\n${output}`)))
  })
  return {
    url: `http://localhost:${port}`,
    close: async () => {
      child.kill("SIGTERM")
      await exited
    }
  }
}

describe("the whole service in Express under /analytics", () => {
  const app = serve(program)
  // The whole service: its console answers at the mount point.
  embeddingContract(app, { console: true })

  const api = (path: string) => `${app.url}/analytics${path}`
  let admin = ""
  let reportId = ""

  /** A call that must succeed; its body. */
  const ok = async (method: string, path: string, body?: unknown) => {
    const answer = await call(api(path), method, { token: admin, ...(body === undefined ? {} : { body }) })
    assert.isBelow(answer.status, 300, `${method} ${path}: ${answer.text}`)
    return answer.body
  }

  /** A job once it has succeeded (or failed: then the assertion says why). */
  const succeeded = async (jobId: string) => {
    const job = await eventually(`job ${jobId}`, () => ok("GET", `/v1/jobs/${jobId}`), (job) => ["succeeded", "failed", "canceled"].includes(job.status))
    assert.strictEqual(job.status, "succeeded", JSON.stringify(job))
    return job
  }

  beforeAll(async () => {
    // A tenant with an uploaded dataset (every row for admins, members and link visitors) and a report over it, through the mounted API.
    admin = await provisionTenant(app.url, `Example ${randomUUID().slice(0, 8)}`)
    const workspace = await ok("POST", "/v1/workspaces", { name: "Sales" })
    const dataset = await ok("POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: "Orders", source: { type: "upload" } })
    const csv = ["id,region,amount", ...Array.from({ length: 200 }, (_, i) => `${i},${["EU", "US", "APAC"][i % 3]},${i % 50}`)].join("\n")
    const uploaded = await fetch(api(`/v1/datasets/${dataset.dataset_id}/data`), {
      method: "PUT",
      headers: { authorization: `Bearer ${admin}`, "content-type": "text/csv" },
      body: csv
    })
    assert.strictEqual(uploaded.status, 200, await uploaded.clone().text())
    const { model } = await uploaded.json() as { model: Record<string, unknown> }
    await ok("PATCH", `/v1/datasets/${dataset.dataset_id}`, { model: { ...model, row_level_security: [{ roles: ["admin", "member", "link"], all_rows: true }] } })
    const report = await ok("POST", "/v1/reports", {
      workspace_id: workspace.workspace_id,
      name: "Orders by region",
      pages: [{
        name: "Overview",
        visuals: [{
          id: "by_region",
          type: "bar",
          title: "Orders by region",
          dataset_id: dataset.dataset_id,
          query: { measures: ["count"], dimensions: ["region"], order: [{ member: "region" }] },
          encoding: { x: "region", y: ["count"] }
        }]
      }]
    })
    reportId = report.report_id
  }, 60_000)

  it("a PDF export requested through the API is run in the app's process and its file downloads", async () => {
    const queued = await ok("POST", `/v1/reports/${reportId}/export`, { format: "pdf" })
    const job = await succeeded(queued.job_id)
    const result = await ok("GET", `/v1/jobs/${job.job_id}/result`)
    assert.isTrue(result.url.startsWith(`${app.url}/analytics/v1/jobs/${job.job_id}/file?`), result.url)
    const file = await fetch(result.url)
    assert.strictEqual(file.status, 200)
    const bytes = Buffer.from(await file.arrayBuffer())
    assert.strictEqual(bytes.subarray(0, 5).toString("latin1"), "%PDF-")
  })

  it("a webhook is delivered, signed, to an HTTPS receiver", async () => {
    const hook = await ok("POST", "/v1/webhooks", {
      url: `https://localhost:${(receiver.address() as AddressInfo).port}/hooks`,
      events: ["export.succeeded"]
    })
    const queued = await ok("POST", `/v1/reports/${reportId}/export`, { format: "csv", visual_id: "by_region" })
    await succeeded(queued.job_id)
    const [delivery] = await eventually("the webhook", () => webhooks.filter((w) => w.body.includes(queued.job_id)), (found) => found.length > 0)
    await WebhookSignature.verifyWebhook(delivery!.body, delivery!.headers, [hook.secret])
    const forged = await WebhookSignature.verifyWebhook(delivery!.body, delivery!.headers, ["whsec_not_the_secret"]).then(() => "verified", (error) => error.reason)
    assert.strictEqual(forged, "no-matching-signature")
    const event = JSON.parse(delivery!.body)
    assert.strictEqual(event.type, "export.succeeded")
    assert.strictEqual(event.data.job_id, queued.job_id)
  })

  it("an export schedule's send-now mails its file through SMTP", async () => {
    const email = `ada-${randomUUID().slice(0, 8)}@example.com`
    await ok("POST", "/v1/users", { email, name: "Ada", roles: ["member"] })
    const schedule = await ok("POST", "/v1/export-schedules", {
      report_id: reportId,
      name: "Weekly orders",
      cron: "0 8 * * 1",
      timezone: "Europe/Paris",
      format: "csv",
      visual_id: "by_region",
      recipients: [email]
    })
    const sent = await ok("POST", `/v1/export-schedules/${schedule.schedule_id}/send-now`)
    await succeeded(sent.deliveries[0].job_id)
    const [mail] = await eventually("the mail", () => mails.filter((m) => m.to.includes(email)), (found) => found.length > 0)
    assert.include(mail!.raw, "Subject: Weekly orders")
    assert.include(mail!.raw, "by_region.csv")
  })

  it.skipIf(!existsSync(chromiumPath))(
    `the console opens under /analytics in Chromium and signs in with the admin token; a shared link's page opens there too${existsSync(chromiumPath) ? "" : " (skipped: no /usr/bin/chromium)"}`,
    async () => {
      const browser = await chromium.launch({
        executablePath: chromiumPath,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
      })
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
        const failures: Array<string> = []
        page.on("response", (response) => void (response.status() >= 400 && failures.push(`${response.status()} ${response.url()}`)))
        page.on("pageerror", (error) => failures.push(`uncaught: ${error.message}`))
        await page.goto(api("/"))
        await page.getByRole("heading", { name: "Sign in" }).waitFor()
        await page.getByText("Sign in with an API token").click()
        await page.locator("input[name=api_token]").fill(admin)
        await page.getByRole("button", { name: "Sign in with the token" }).click()
        await page.getByRole("heading", { name: "Workspaces" }).waitFor()
        await page.getByRole("link", { name: "Sales" }).waitFor()
        // Every link of the console stays under the mount path.
        const hrefs = await page.locator("a[href]").evaluateAll((links) => links.map((a) => (a as HTMLAnchorElement).href))
        for (const href of hrefs.filter((h) => h.startsWith(app.url))) assert.isTrue(href.startsWith(`${app.url}/analytics/`), href)
        const shots = process.env["SCREENSHOT_DIR"] ?? work
        await page.screenshot({ path: join(shots, "console-1280.png"), fullPage: true })
        await page.setViewportSize({ width: 390, height: 844 })
        await page.screenshot({ path: join(shots, "console-390.png"), fullPage: true })
        await page.getByRole("link", { name: "Sales" }).click()
        await page.getByRole("heading", { name: "Reports" }).waitFor()
        assert.isTrue(page.url().startsWith(`${app.url}/analytics/w/`), page.url())

        // A report shared by a public link opens under the mount path, drawn by the viewer's assets.
        const link = await ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"] })
        assert.isTrue(link.link_url.startsWith(`${app.url}/analytics/s/`), link.link_url)
        const visitor = await browser.newPage({ viewport: { width: 1280, height: 800 } })
        visitor.on("response", (response) => void (response.status() >= 400 && failures.push(`${response.status()} ${response.url()}`)))
        visitor.on("pageerror", (error) => failures.push(`uncaught: ${error.message}`))
        const scripts: Array<string> = []
        visitor.on("request", (request) => void (request.resourceType() === "script" && scripts.push(request.url())))
        await visitor.goto(link.link_url)
        await visitor.getByText("Orders by region").first().waitFor()
        await visitor.locator("svg").first().waitFor()
        await visitor.waitForLoadState("networkidle")
        assert.isAbove(scripts.length, 0)
        for (const script of scripts) assert.isTrue(script.startsWith(`${app.url}/analytics/`), script)
        await visitor.screenshot({ path: join(shots, "share-1280.png"), fullPage: true })
        assert.deepStrictEqual(failures, [])
      } finally {
        await browser.close()
      }
    },
    60_000
  )
})
