/**
 * The console's browser code that needs no browser: the API client (URLs
 * relative to the mount point, cookies, the CSRF header on unsafe methods
 * only, problems in words, 401 handed to the shell), the router's matching
 * and its guard on `?next=`, the words (`msg`), and the theme's colours
 * (any brand colour reads at 4.5:1 in both themes).
 */
import { afterEach, assert, describe, it, vi } from "@effect/vitest"
import { ApiProblem, makeClient, problemOf } from "../src/client/ApiClient.ts"
import { setSession } from "../src/client/Session.ts"
import { fieldWords } from "../src/client/ProblemWords.ts"
import { fieldLine } from "../src/console/FormErrors.ts"
import { match, type Route, safeNext } from "../src/console/Router.ts"
import { en } from "../src/i18n/en.ts"
import { msg, useMessages } from "../src/i18n/msg.ts"
import { contrast, parseHex } from "../src/theme/Colors.ts"
import { css, tokens } from "../src/theme/Theme.ts"
import { Theme } from "@analytics/charts"

interface Seen {
  readonly url: string
  readonly init: RequestInit
}

/** `fetch` answering `answers` in turn, recording each call. */
const fakeFetch = (answers: ReadonlyArray<Response | Error>) => {
  const seen: Array<Seen> = []
  let i = 0
  vi.stubGlobal("fetch", async (url: URL, init: RequestInit) => {
    seen.push({ url: String(url), init })
    const answer = answers[i++]!
    if (answer instanceof Error) throw answer
    return answer
  })
  return seen
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": status >= 400 ? "application/problem+json" : "application/json", ...headers } })

const session = {
  user: { user_id: "usr_1", email: "ada@example.com", display_name: "Ada", roles: ["admin"] },
  tenant: { tenant_id: "ten_1", name: "Acme" },
  via: "link" as const,
  csrf_token: "csrf-1",
  idle_expires_at: null,
  expires_at: null
}

afterEach(() => {
  vi.unstubAllGlobals()
  setSession(null)
})

describe("the console's API client", () => {
  it("resolves paths against the mount point, sends the page's cookies, and X-CSRF-Token on unsafe methods only", async () => {
    const seen = fakeFetch([json(200, { data: [], page: { limit: 20, next_cursor: null, has_more: false } }), json(201, { workspace_id: "ws_1" }), new Response(null, { status: 204 })])
    setSession(session)
    const client = makeClient({ base: "http://x/analytics/" })
    await client.list("v1/workspaces?limit=20", "c/1")
    assert.deepStrictEqual<unknown>(await client.post("v1/workspaces", { name: "Sales" }), { workspace_id: "ws_1" })
    assert.isUndefined(await client.delete("api/session"))
    assert.deepStrictEqual(seen.map((s) => `${s.init.method} ${s.url}`), [
      "GET http://x/analytics/v1/workspaces?limit=20&cursor=c%2F1",
      "POST http://x/analytics/v1/workspaces",
      "DELETE http://x/analytics/api/session"
    ])
    for (const s of seen) assert.strictEqual(s.init.credentials, "same-origin")
    const headers = seen.map((s) => s.init.headers as Record<string, string>)
    assert.isUndefined(headers[0]!["x-csrf-token"])
    assert.strictEqual(headers[1]!["x-csrf-token"], "csrf-1")
    assert.strictEqual(headers[1]!["content-type"], "application/json")
    assert.strictEqual(seen[1]!.init.body, `{"name":"Sales"}`)
    assert.strictEqual(headers[2]!["x-csrf-token"], "csrf-1")
  })

  it("turns problems into words with what to do; a 401 tells the shell unless expected; an unreachable service says so", async () => {
    fakeFetch([
      json(401, { title: "Unauthorized", status: 401, code: "auth/unauthenticated", detail: "Your session ended" }),
      json(401, { title: "Unauthorized", status: 401, code: "auth/sign-in-link-invalid", detail: "Ask for a new link" }),
      json(429, { title: "Too many requests", status: 429, code: "rate-limit/exceeded" }, { "retry-after": "7" }),
      json(429, { title: "Too many requests", status: 429, code: "rate-limit/exceeded" }, { "retry-after": "1" }),
      json(403, { title: "Forbidden", status: 403, code: "auth/csrf-failed", detail: "Reload the page and try again" }),
      new TypeError("Failed to fetch")
    ])
    const told: Array<string> = []
    const client = makeClient({ base: "http://x/", onUnauthorized: (p) => told.push(p.code) })
    const problem = (call: Promise<unknown>) => call.then(() => assert.fail("expected a problem"), (e: unknown) => (assert.instanceOf(e, ApiProblem), (e as ApiProblem).problem))
    const expired = await problem(client.get("v1/workspaces"))
    assert.deepStrictEqual(expired, { status: 401, code: "auth/unauthenticated", title: en["problem.title.unauthenticated"], detail: "Your session ended", action: en["problem.action.signIn"] })
    const spent = await problem(client.post("api/session", { link_token: "t" }, { signedOut: true }))
    assert.strictEqual(spent.detail, "Ask for a new link")
    assert.deepStrictEqual(told, ["auth/unauthenticated"], "an expected 401 (signing in) does not send the person to sign-in")
    assert.strictEqual((await problem(client.get("v1/workspaces"))).action, "Wait 7 seconds, then try again.")
    assert.strictEqual((await problem(client.get("v1/workspaces"))).action, "Wait a second, then try again.")
    assert.strictEqual((await problem(client.post("v1/workspaces", { name: "Sales" }))).action, en["problem.action.reload"])
    const offline = await problem(client.get("v1/workspaces"))
    assert.deepStrictEqual([offline.code, offline.title, offline.action], ["network", en["problem.network"], en["problem.action.connection"]])
  })

  it("makes words of an answer that is not problem+json", () => {
    const p = problemOf(502, undefined)
    assert.deepStrictEqual(p, { status: 502, code: "http/502", title: en["problem.generic"], detail: "", action: en["problem.action.later"] })
    assert.strictEqual(problemOf(404, { title: "Not found", code: "resource/not-found" }).action, en["problem.action.checkAddress"])
    assert.strictEqual(problemOf(400, { title: "Invalid", code: "request/invalid" }).action, en["problem.action.fix"])
  })

  it("says problems in words for people: titles by code, no API jargon; a validation problem's fields in words; a `field: what` detail a field", () => {
    // The service's titles speak to API callers; the console's do not.
    const titles = ["auth/unauthenticated", "grant/invalid", "schedule/invalid", "request/invalid", "resource/not-found", "report/invalid"].map((code) => problemOf(400, { title: "x", code }).title)
    for (const title of titles) {
      assert.notMatch(title, /bearer|hold together|validation|resource|expires_at/i, title)
      assert.notStrictEqual(title, "x")
    }
    assert.strictEqual(problemOf(409, { title: "Some new refusal", code: "area/new" }).title, "Some new refusal", "an unknown code keeps the service's title")
    // "see errors" is left to the fields, each in words.
    const invalid = problemOf(400, {
      title: "The request failed validation",
      code: "request/invalid",
      detail: "The request failed validation; see errors",
      errors: [
        { path: ["payload", "name"], message: "Expected a value with a length of at least 1, got \"\"" },
        { path: ["payload", "cron"], message: "Expected a five-field cron expression such as \"0 8 * * 1\" (Mondays at 08:00), got \"99 * * *\"" }
      ]
    })
    assert.strictEqual(invalid.title, en["problem.title.invalid"])
    assert.strictEqual(invalid.detail, "")
    assert.deepStrictEqual(invalid.errors?.map((e) => fieldLine(e)), [
      `name: ${en["problem.field.empty"]}`,
      "cron: Use a five-field cron expression such as \"0 8 * * 1\" (Mondays at 08:00)."
    ])
    assert.strictEqual(fieldWords("Expected a string with at most 200 code points"), "Use at most 200 characters.")
    assert.strictEqual(fieldWords("Expected an IANA time zone such as \"Europe/Paris\", got \"Mars/Base\""), en["problem.field.timezone"])
    // A refusal that names its field in its detail marks that field, in words, without the API's name for it.
    const past = problemOf(400, { title: "The grant does not hold together", code: "grant/invalid", detail: "expires_at must be in the future" })
    assert.deepStrictEqual([past.title, past.detail, past.errors], [en["problem.title.grantInvalid"], "", [{ path: ["expires_at"], message: "must be in the future" }]])
    assert.strictEqual(fieldLine(past.errors![0]!), `expires at: ${en["problem.field.future"]}`)
    assert.strictEqual(fieldLine({ ...past.errors![0]!, label: "Expires" }), `Expires: ${en["problem.field.future"]}`)
    const named = problemOf(400, { code: "schedule/invalid", detail: "recipients: ada@example.com is a deprovisioned user of this tenant" })
    assert.deepStrictEqual(named.errors, [{ path: ["recipients"], message: "ada@example.com is a deprovisioned user of this tenant" }])
    assert.strictEqual(problemOf(409, { code: "x/y", detail: "name: taken" }).errors, undefined, "only a 400's detail names a field")
  })

  it("reads what uses a dataset from dataset/in-use: each report, dashboard and alert by id and name, malformed entries left out", () => {
    const inUse = problemOf(409, {
      code: "dataset/in-use",
      title: "x",
      reports: [{ report_id: "r1", name: "Sales overview" }, { name: "no id" }],
      dashboards: [{ dashboard_id: "d1", name: "Executive" }],
      alerts: "not a list"
    })
    assert.strictEqual(inUse.title, en["problem.title.datasetInUse"])
    assert.deepStrictEqual(inUse.uses, { reports: [{ id: "r1", name: "Sales overview" }], dashboards: [{ id: "d1", name: "Executive" }], alerts: [] })
    assert.strictEqual(problemOf(409, { code: "dataset/not-loaded", reports: [{ report_id: "r1", name: "x" }] }).uses, undefined, "only dataset/in-use names uses")
  })
})

describe("the console's router", () => {
  const load = () => Promise.resolve()
  const routes: ReadonlyArray<Route> = [
    { pattern: "", tag: "home", load },
    { pattern: "sign-in", tag: "sign-in", load, public: true },
    { pattern: "w/:workspace", tag: "workspace", load },
    { pattern: "w/:workspace/reports/:report", tag: "report", load }
  ]
  const fallback: Route = { pattern: "*", tag: "not-found", load, public: true }

  it("matches paths relative to the mount point, with parameters decoded and the query", () => {
    assert.strictEqual(match(routes, fallback, "").route.tag, "home")
    const found = match(routes, fallback, "w/ws%201/reports/rep_1", "?page=Mix")
    assert.strictEqual(found.route.tag, "report")
    assert.deepStrictEqual(found.params, { workspace: "ws 1", report: "rep_1" })
    assert.strictEqual(found.query.get("page"), "Mix")
    assert.strictEqual(match(routes, fallback, "w/ws_1/nothing").route.tag, "not-found")
    assert.strictEqual(match(routes, fallback, "sign-in/").route.tag, "sign-in")
  })

  it("comes back after sign-in only to a path inside the console", () => {
    assert.strictEqual(safeNext("w/ws_1/reports/rep_1?page=2"), "w/ws_1/reports/rep_1?page=2")
    // A report's filters (JSON in the query) and its page (the fragment) come back as they were.
    const view = `w/ws_1/reports/rep_1?filters=${encodeURIComponent('{"region":["EU"]}')}#page=Mix`
    assert.strictEqual(safeNext(view), view)
    assert.strictEqual(safeNext('w/ws_1/reports/rep_1?filters={"region":["EU"]}#page=2'), 'w/ws_1/reports/rep_1?filters={"region":["EU"]}#page=2')
    for (const bad of ["https://evil.example", "//evil.example/x", "/w/ws_1", "w/../../x", "javascript:alert(1)", "w\\..\\x", "JavaScript:alert(1)", "w/x\nSet-Cookie", "w//evil", null]) {
      assert.strictEqual(safeNext(bad), "", String(bad))
    }
  })
})

describe("the console's words", () => {
  it("fills parameters, and falls back to English for a key a translation lacks", () => {
    assert.strictEqual(msg("app.signedInAs", { name: "Ada" }), "Signed in as Ada")
    assert.strictEqual(msg("problem.action.wait", {}), "Wait {seconds} seconds, then try again.")
    useMessages({ "app.signOut": "Se déconnecter" })
    try {
      assert.strictEqual(msg("app.signOut"), "Se déconnecter")
      assert.strictEqual(msg("app.skip"), "Skip to content")
    } finally {
      useMessages({})
    }
  })
})

describe("the console's theme", () => {
  it("makes any brand colour read at 4.5:1 on the page and cards of both themes, and its text on it", () => {
    const surfaces = { light: ["#ffffff", "#f6f8fa"], dark: ["#121417", "#1b1f24"] }
    for (const brand of ["#2563eb", "#facc15", "#ffffff", "#000000", "#0f766e", "#e11d48", "#7dd3fc", "not a colour"]) {
      const t = tokens(brand)
      for (const [primary, on, backgrounds] of [[t.light, t.onLight, surfaces.light], [t.dark, t.onDark, surfaces.dark]] as const) {
        for (const bg of backgrounds) assert.isAtLeast(contrast(parseHex(primary)!, parseHex(bg)!), 4.5, `${brand}: ${primary} on ${bg}`)
        assert.isAtLeast(contrast(parseHex(primary)!, parseHex(on)!), 4.5, `${brand}: text ${on} on ${primary}`)
      }
    }
    assert.strictEqual(tokens("#2563eb").light, "#2563eb", "a brand colour that reads already is kept")
  })

  it("its dark card and page are the backgrounds the charts' dark colours are made for", () => {
    const dark = css("#2563eb").split("@media (prefers-color-scheme: dark)")[1]!
    const [bg, surface] = ["bg", "surface"].map((name) => new RegExp(`--analytics-${name}: (#[0-9a-f]{6})`).exec(dark)?.[1])
    assert.deepStrictEqual([bg, surface], [...Theme.darkBackgrounds])
  })
})
