/**
 * Scheduled exports on the packaged host, as a user meets them: the demo
 * host (embedded PGlite, the demo data) mailing through a real SMTP server
 * (smtp-server, in this process). Recipients with different row-level
 * security in the demo's terms (its `CFO` executive role sees every row;
 * regional leads, roles the admin adds to the demo's model over the API,
 * see their region's) each receive, for a "send now" of a PDF of the demo
 * report and of a CSV of one visual, a mail whose attachment, read by an
 * independent reader (mailparser for MIME, poppler's pdftotext, the CSV's
 * lines), has the numbers the visual query endpoint gives them live with
 * their own token. And a host killed with SIGKILL after `send-now`
 * answered but before any job ran: restarted on the same data directory,
 * every recipient gets exactly one mail.
 */
import { Poppler } from "@analytics/testing/documents"
import { SmtpServer } from "@analytics/testing/smtp"
import { Effect, Exit, Scope } from "effect"
import { simpleParser } from "mailparser"
import { afterAll, describe, expect, it } from "vitest"
import { call, type Cleanups, demoHost, type Host, healthy, run, settledJob, stop } from "./HostProcess.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** A real SMTP server on a loopback port, closed by `cleanups`: its port and what it received. */
const smtpServer = async () => {
  const scope = Effect.runSync(Scope.make())
  const server = await Effect.runPromise(Scope.provide(SmtpServer.start(), scope))
  cleanups.push(() => Effect.runPromise(Scope.close(scope, Exit.void)))
  return server
}

/** A call that must succeed; its body. */
const ok = async (host: Host, method: string, path: string, token: string, body?: unknown) => {
  const response = await call(host, method, path, token, body)
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body
}

/** En-US text of a count as the documents print it. */
const shown = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 0 })

/** En-US text of an amount in euros as the documents print it (the model's format: EUR, 2 decimals). */
const euros = (value: number) => value.toLocaleString("en-US", { style: "currency", currency: "EUR", minimumFractionDigits: 2, maximumFractionDigits: 2 })

/** The recipients: who they are to row-level security, and the regions they should see. */
const people = [
  { email: "ada@example.com", name: "Ada", role: "CFO", regions: ["APAC", "EU", "LATAM", "US"] },
  { email: "grace@example.com", name: "Grace", role: "EU Lead", regions: ["EU"] },
  { email: "linus@example.com", name: "Linus", role: "US Lead", regions: ["US"] }
] as const

/**
 * On a demo host (whose model gives the `CFO` every row and each region's
 * lead that region's): the recipients as users of the tenant in their
 * executive roles, each with a personal token.
 */
const recipients = async (host: Host, admin: string) => {
  return Promise.all(people.map(async (person) => {
    const user = await ok(host, "POST", "/v1/users", admin, { email: person.email, name: person.name, roles: ["member"] })
    const role = await ok(host, "POST", "/v1/executive-roles", admin, { name: person.role })
    await ok(host, "POST", `/v1/executive-roles/${role.role_id}/members`, admin, { user_id: user.user_id })
    const token: string = (await ok(host, "POST", `/v1/users/${user.user_id}/tokens`, admin)).token
    return { ...person, token }
  }))
}

/** Every message the server received, parsed by mailparser: its envelope, subject, text and attachments. */
const mailbox = (smtp: { readonly received: ReadonlyArray<SmtpServer.Received> }) =>
  Promise.all(smtp.received.map(async (message) => {
    const parsed = await simpleParser(message.raw)
    return {
      to: message.to,
      subject: parsed.subject ?? "",
      text: parsed.text ?? "",
      attachments: parsed.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: new Uint8Array(a.content) }))
    }
  }))

/** The jobs of a run's deliveries once settled (the worker mails before it settles a job). */
const settledDeliveries = (host: Host, token: string, sent: { deliveries: ReadonlyArray<{ recipient: string; job_id?: string }> }) =>
  Promise.all(sent.deliveries.map(async (delivery) => {
    expect(delivery.job_id, delivery.recipient).toBeTypeOf("string")
    return { recipient: delivery.recipient, job: await settledJob(host, token, delivery.job_id!, 120_000) }
  }))

/** The lines of a CSV without quoting (the demo's values have no commas or quotes), as records of its header. */
const csvRecords = (text: string) => {
  expect(text).not.toContain("\"")
  const [header, ...lines] = text.trimEnd().split("\r\n")
  const names = header!.split(",")
  return lines.map((line) => Object.fromEntries(line.split(",").map((cell, i) => [names[i], cell])))
}

/** The "Weekly" schedules of the demo report to `emails`: the whole report as PDF, and its "Revenue by region" as CSV. */
const schedules = (reportId: string, emails: ReadonlyArray<string>) => [
  { report_id: reportId, name: "Weekly sales book", cron: "0 8 * * 1", timezone: "Europe/Paris", format: "pdf", recipients: emails },
  { report_id: reportId, name: "Weekly revenue by region", cron: "0 8 * * 1", timezone: "Europe/Paris", format: "csv", visual_id: "revenue_by_region", recipients: emails }
]

describe("scheduled exports on the packaged host, mailed through a real SMTP server", () => {
  it("send now: each recipient receives the PDF and the CSV with the numbers they see live, and nobody else's", async () => {
    const smtp = await smtpServer()
    const { host, report, token: admin } = await demoHost(cleanups, (port) => `http://127.0.0.1:${port}`, { SMTP_URL: `smtp://127.0.0.1:${smtp.port}` })
    const users = await recipients(host, admin)
    // What each sees live, through their own token: the key figure, the regions and the products table.
    // (One query at a time: the workspace runs at most 8 at once.)
    const live = []
    for (const user of users) {
      const visual = (id: string) => ok(host, "POST", `/v1/reports/${report.report_id}/visuals/${id}/query`, user.token, {})
      const [total, byRegion, products] = [await visual("revenue_total"), await visual("revenue_by_region"), await visual("products")]
      live.push({ user, revenue: total.data[0].revenue as number, byRegion: byRegion.data as Array<{ region: string; revenue: number }>, products: products.data as Array<any> })
    }
    for (const { byRegion, user } of live) expect(byRegion.map((r) => r.region).sort(), user.email).toEqual(user.regions)
    const [ada, grace, linus] = live
    expect(grace!.revenue + linus!.revenue).toBeLessThan(ada!.revenue)

    const runs = []
    for (const body of schedules(report.report_id, users.map((u) => u.email))) {
      const schedule = await ok(host, "POST", "/v1/export-schedules", admin, body)
      const sent = await call(host, "POST", `/v1/export-schedules/${schedule.schedule_id}/send-now`, admin)
      expect(sent.status, JSON.stringify(sent.body)).toBe(202)
      expect(sent.body.deliveries.map((d: any) => d.recipient)).toEqual(users.map((u) => u.email))
      runs.push(sent.body)
    }
    for (const run of runs) {
      for (const { job, recipient } of await settledDeliveries(host, admin, run)) {
        expect(job, recipient).toMatchObject({ status: "succeeded", attempts: 1, error: null })
      }
    }

    const mails = await mailbox(smtp)
    expect(mails).toHaveLength(6)
    for (const { byRegion, products, revenue, user } of live) {
      const theirs = mails.filter((m) => m.to.includes(user.email))
      expect(theirs.map((m) => m.to), user.email).toEqual([[user.email], [user.email]])
      const pdfMail = theirs.find((m) => m.subject === "Weekly sales book: Sales_overview.pdf")
      const csvMail = theirs.find((m) => m.subject === "Weekly revenue by region: revenue_by_region.csv")
      expect(pdfMail, `${user.email}: ${theirs.map((m) => m.subject)}`).toBeDefined()
      expect(csvMail, `${user.email}: ${theirs.map((m) => m.subject)}`).toBeDefined()

      // The CSV: the rows of their regions, the same as their live query.
      expect(csvMail!.attachments.map((a) => [a.filename, a.contentType])).toEqual([["revenue_by_region.csv", "text/csv"]])
      const rows = csvRecords(new TextDecoder().decode(csvMail!.attachments[0]!.content))
      expect(rows.map((r) => ({ region: r.region, revenue: Number(r.revenue) })), user.email).toEqual(byRegion)
      // The mail's signed link gives the same file, without a token.
      const link = /https?:\/\/\S+/.exec(csvMail!.text)?.[0]
      expect(link, csvMail!.text).toBeDefined()
      const linked = await fetch(link!)
      expect(linked.status).toBe(200)
      expect(new Uint8Array(await linked.arrayBuffer())).toEqual(csvMail!.attachments[0]!.content)

      // The PDF, read by poppler: their key figure, their regions on the bar chart's axis (words of one line), their products' figures.
      expect(pdfMail!.attachments.map((a) => [a.filename, a.contentType])).toEqual([["Sales_overview.pdf", "application/pdf"]])
      if (!Poppler.available) continue
      const pdf = Poppler.read(pdfMail!.attachments[0]!.content)
      expect(pdf.title).toBe("Sales overview")
      const pages = pdf.text.split("\f")
      expect(pages[1], user.email).toContain(euros(revenue))
      for (const other of live.filter((o) => o.revenue !== revenue)) expect(pages[1], user.email).not.toContain(euros(other.revenue))
      expect(pages[1]!.split(/\s+/), user.email).toEqual(expect.arrayContaining([...user.regions]))
      for (const region of ["APAC", "EU", "LATAM", "US"].filter((r) => !(user.regions as ReadonlyArray<string>).includes(r))) {
        expect(pages[1], `${user.email} sees ${region}`).not.toMatch(new RegExp(`\\b${region}\\b`))
      }
      expect(products).toHaveLength(5)
      for (const row of products) {
        const line = pages[3]!.split("\n").find((l) => l.trim().startsWith(row.product))
        expect(line, `${user.email}: ${row.product}`).toBeDefined()
        expect(line!.trim().split(/\s{2,}/).slice(1, 3), `${user.email}: ${row.product}`).toEqual([shown(row.orders), shown(row.units)])
      }
    }
  }, 420_000)

  it("kill -9 after send-now answered and before any job ran: after the restart every recipient gets exactly one mail", async () => {
    const smtp = await smtpServer()
    // The first process takes requests but runs no exports.
    const { dataDir, environment, host, report, token: admin } = await demoHost(cleanups, (port) => `http://127.0.0.1:${port}`, {
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      ANALYTICS_EXPORT_WORKER: "false"
    })
    const users = await recipients(host, admin)
    const live = await Promise.all(users.map(async (user) =>
      (await ok(host, "POST", `/v1/reports/${report.report_id}/visuals/revenue_by_region/query`, user.token, {})).data
    ))
    const schedule = await ok(host, "POST", "/v1/export-schedules", admin, schedules(report.report_id, users.map((u) => u.email))[1])
    const sent = await call(host, "POST", `/v1/export-schedules/${schedule.schedule_id}/send-now`, admin)
    expect(sent.status, JSON.stringify(sent.body)).toBe(202)
    for (const delivery of sent.body.deliveries) expect((await ok(host, "GET", `/v1/jobs/${delivery.job_id}`, admin)).status).toBe("queued")
    host.process.kill("SIGKILL")
    expect(await host.exited).toBe("SIGKILL")
    expect(smtp.received).toHaveLength(0)

    // The same data directory, a new process with its worker on.
    const restarted = run(["serve"], { ...environment, ANALYTICS_DATA_DIR: dataDir, ANALYTICS_EXPORT_WORKER: "true" })
    cleanups.push(async () => void (await stop(restarted)))
    await healthy(restarted, 120_000)
    for (const { job, recipient } of await settledDeliveries(restarted, admin, sent.body)) {
      expect(job, recipient).toMatchObject({ status: "succeeded", attempts: 1, error: null })
    }
    // Stopped, so that nothing more can be sent: one mail each, with their own rows.
    await stop(restarted)
    const mails = await mailbox(smtp)
    expect(mails.map((m) => m.to).sort()).toEqual(users.map((u) => [u.email]).sort())
    users.forEach((user, i) => {
      const mail = mails.find((m) => m.to.includes(user.email))!
      expect(mail.subject).toBe("Weekly revenue by region: revenue_by_region.csv")
      const rows = csvRecords(new TextDecoder().decode(mail.attachments[0]!.content))
      expect(rows.map((r) => ({ region: r.region, revenue: Number(r.revenue) })), user.email).toEqual(live[i])
    })
  }, 420_000)
})
