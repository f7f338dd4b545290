/**
 * Sharing grants over real HTTP (decision 0014), on a real DuckDB engine,
 * Argon2id and a real SMTP server: every audience; who may grant; grants to
 * executive roles and teams followed through membership at each request;
 * an address that is no user invited and granted on acceptance; expiry
 * (403 share/expired) and revocation from the very next request; public
 * links with a password (5 failures per 5 minutes per address), a session,
 * a watermark and content negotiation; signed embeds and their refusals;
 * the audit log and the events, never with a secret.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SignJWT, UnsecuredJWT } from "jose"
import { problemCode } from "@analytics/testing/http"
import { grantsPath, passwordLink, setup } from "./SharingFixture.ts"

describe("sharing grants", () => {
  it.live("create and manage: validation, who may grant, roles and teams followed at each request, invitations, expiry and revocation from the next request, audit and events", () =>
    Effect.gen(function*() {
      const { admin, call, ok, reportId, server, smtp, user, workspaceId } = yield* setup
      const hook = yield* ok("POST", "/v1/webhooks", { url: "https://hooks.example.com/in", events: ["sharing.grant.created", "sharing.grant.revoked"] })
      const onReport = { subject_type: "report", subject_id: reportId }
      // Bad requests answer a problem naming what is wrong, and change nothing.
      const badAction = yield* call("POST", grantsPath, admin, { ...onReport, principal_type: "link", actions: ["view", "fly"] })
      assert.strictEqual(problemCode(badAction), "request/invalid")
      assert.include(badAction.text, "fly", badAction.text)
      assert.strictEqual(problemCode(yield* call("POST", grantsPath, admin, { ...onReport, subject_id: "not-a-uuid", principal_type: "link", actions: ["view"] })), "request/invalid")
      assert.strictEqual(problemCode(yield* call("POST", grantsPath, admin, { ...onReport, principal_type: "link", actions: ["view"], expires_at: "2020-01-01T00:00:00Z" })), "grant/invalid")
      assert.strictEqual(problemCode(yield* call("POST", grantsPath, admin, { ...onReport, principal_type: "link", actions: ["view"], password: "short" })), "request/invalid")
      assert.strictEqual(problemCode(yield* call("POST", grantsPath, admin, { ...onReport, subject_id: crypto.randomUUID(), principal_type: "link", actions: ["view"] })), "resource/not-found")
      assert.deepStrictEqual((yield* ok("GET", grantsPath)).data, [])

      // Rule 2: a grant to an executive role is decided by the role the user holds at each request.
      const ada = yield* user("ada@example.com")
      const role = yield* ok("POST", "/v1/executive-roles", { name: "CFO" })
      const toRole = yield* ok("POST", grantsPath, { ...onReport, principal_type: "executive_role", principal_id: role.role_id, actions: ["view", "edit"] })
      assert.deepInclude(toRole, { state: "active", principal_type: "executive_role", link_url: null, paused: false, password_protected: false })
      const rename = (token: string, name: string) => call("PATCH", `/v1/reports/${reportId}`, token, { name })
      assert.strictEqual(problemCode(yield* rename(ada.token, "Ada's")), "auth/forbidden")
      yield* ok("POST", `/v1/executive-roles/${role.role_id}/members`, { user_id: ada.id })
      assert.strictEqual((yield* rename(ada.token, "Ada's")).status, 200)
      yield* ok("DELETE", `/v1/executive-roles/${role.role_id}/members/${ada.id}`)
      assert.strictEqual(problemCode(yield* rename(ada.token, "Ada's again")), "auth/forbidden")

      // Rule 4: a team's grant follows its members; it may carry share, and members re-share only what they hold.
      const team = yield* ok("POST", "/v1/teams", { name: "Finance" })
      yield* ok("POST", `/v1/teams/${team.team_id}/members`, { user_id: ada.id })
      const toTeam = yield* ok("POST", grantsPath, { subject_type: "workspace", subject_id: workspaceId, principal_type: "team", principal_id: team.team_id, actions: ["view", "share"] })
      const bob = yield* user("bob@example.com")
      const byAda = yield* call("POST", grantsPath, ada.token, { ...onReport, principal_type: "user", principal_id: bob.id, actions: ["view"] })
      assert.strictEqual(byAda.status, 201, byAda.text)
      assert.deepStrictEqual(byAda.body.created_by, { type: "user", id: ada.id })
      assert.strictEqual(problemCode(yield* call("POST", grantsPath, ada.token, { ...onReport, principal_type: "user", principal_id: bob.id, actions: ["edit"] })), "auth/forbidden")
      // Bob holds no share: he may grant nothing, and sees none of Ada's grants.
      assert.strictEqual(problemCode(yield* call("POST", grantsPath, bob.token, { ...onReport, principal_type: "link", actions: ["view"] })), "auth/forbidden")
      assert.strictEqual(problemCode(yield* call("GET", `${grantsPath}/${toTeam.grant_id}`, bob.token)), "resource/not-found")
      // Members list the grants they made; admins every grant.
      assert.deepStrictEqual((yield* ok("GET", grantsPath, undefined, ada.token)).data.map((g: any) => g.grant_id), [byAda.body.grant_id])
      assert.strictEqual((yield* ok("GET", grantsPath)).data.length, 3)
      assert.deepStrictEqual((yield* ok("GET", `${grantsPath}?principal_type=team`)).data.map((g: any) => g.grant_id), [toTeam.grant_id])

      // Rule 4 again, for a group synced by the identity provider (SCIM): membership changed there applies at the next request.
      const idp = (yield* ok("POST", "/v1/scim-tokens", {})).token as string
      const scim = (method: string, path: string, body: unknown) =>
        server.request(method, `/scim/v2${path}`, { token: idp, body, headers: { "content-type": "application/scim+json" } })
      const synced = (yield* scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Editors", members: [] })).body
      yield* ok("POST", grantsPath, { ...onReport, principal_type: "team", principal_id: synced.id, actions: ["view", "edit"] })
      // Its members are users it provisioned (decision 0012): Erin, with a personal token from the admin.
      const erinId = (yield* scim("POST", "/Users", { userName: "erin@example.com" })).body.id as string
      const erin = { id: erinId, token: (yield* ok("POST", `/v1/users/${erinId}/tokens`, {})).token as string }
      assert.strictEqual(problemCode(yield* rename(erin.token, "Erin's")), "auth/forbidden")
      const membership = (op: "add" | "remove") =>
        scim("PATCH", `/Groups/${synced.id}`, {
          schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
          Operations: [op === "add" ? { op, path: "members", value: [{ value: erin.id }] } : { op, path: `members[value eq "${erin.id}"]` }]
        })
      assert.strictEqual((yield* membership("add")).status, 200)
      assert.strictEqual((yield* rename(erin.token, "Erin's")).status, 200)
      assert.strictEqual((yield* membership("remove")).status, 200)
      assert.strictEqual(problemCode(yield* rename(erin.token, "Erin's again")), "auth/forbidden")

      // Rule 3: a user gets access at once; an address that is no user gets an invitation, and the grant once accepted.
      const invited = yield* ok("POST", grantsPath, { ...onReport, principal_type: "user", email: "Carol@Example.com", actions: ["view", "edit"] })
      assert.deepInclude(invited, { principal_id: null, email: "carol@example.com" })
      assert.isString(invited.invitation_id)
      const message = [...smtp.received].reverse().find((m) => m.to.includes("carol@example.com"))
      const invitationToken = /token=([A-Za-z0-9_%-]+)/.exec(message!.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "="))![1]!
      const accepted = yield* server.request("POST", "/v1/invitations/accept", { body: { token: decodeURIComponent(invitationToken) } })
      assert.strictEqual(accepted.status, 201, accepted.text)
      const carol = accepted.body.token as string
      assert.strictEqual((yield* ok("GET", `${grantsPath}/${invited.grant_id}`)).principal_id, accepted.body.user.user_id)
      assert.strictEqual((yield* rename(carol, "Carol's")).status, 200)

      // Expiry (decision 0014): from expires_at on, 403 share/expired; the record stays, its state says so.
      const soon = new Date(Date.now() + 1500).toISOString()
      const dave = yield* user("dave@example.com")
      const expiring = yield* ok("POST", grantsPath, { ...onReport, principal_type: "user", principal_id: dave.id, actions: ["view", "edit"], expires_at: soon })
      assert.strictEqual((yield* rename(dave.token, "Dave's")).status, 200)
      yield* Effect.sleep("1600 millis")
      assert.strictEqual(problemCode(yield* rename(dave.token, "Dave's again")), "share/expired")
      assert.strictEqual((yield* ok("GET", `${grantsPath}/${expiring.grant_id}`)).state, "expired")
      assert.deepStrictEqual((yield* ok("GET", `${grantsPath}?state=expired`)).data.map((g: any) => g.grant_id), [expiring.grant_id])
      assert.strictEqual(problemCode(yield* call("PATCH", `${grantsPath}/${expiring.grant_id}`, admin, { actions: ["view"] })), "grant/not-active")
      // Revoking it is refused too: it stays expired, and its principal keeps hearing share/expired.
      const revokeExpired = yield* call("DELETE", `${grantsPath}/${expiring.grant_id}`, admin)
      assert.strictEqual(problemCode(revokeExpired), "grant/not-active")
      assert.strictEqual(revokeExpired.body.state, "expired")
      assert.deepInclude(yield* ok("GET", `${grantsPath}/${expiring.grant_id}`), { state: "expired", revoked_at: null })
      assert.strictEqual(problemCode(yield* rename(dave.token, "Dave's again")), "share/expired")

      // Update, then revoke: refused from the very next request; revoking again is refused and changes nothing.
      const updated = yield* ok("PATCH", `${grantsPath}/${invited.grant_id}`, { actions: ["view"], watermark: true })
      assert.deepInclude(updated, { actions: ["view"], watermark: true })
      assert.strictEqual(problemCode(yield* rename(carol, "Carol's again")), "auth/forbidden")
      yield* ok("PATCH", `${grantsPath}/${invited.grant_id}`, { actions: ["view", "edit"] })
      assert.strictEqual((yield* rename(carol, "Carol's third")).status, 200)
      const revoked = yield* ok("DELETE", `${grantsPath}/${invited.grant_id}`)
      assert.strictEqual(revoked.state, "revoked")
      assert.strictEqual(problemCode(yield* rename(carol, "Carol's last")), "auth/forbidden")
      const again = yield* call("DELETE", `${grantsPath}/${invited.grant_id}`, admin)
      assert.strictEqual(problemCode(again), "grant/not-active")
      assert.strictEqual(again.body.state, "revoked")
      assert.strictEqual((yield* ok("GET", `${grantsPath}/${invited.grant_id}`)).revoked_at, revoked.revoked_at)

      // Only a link pauses.
      assert.strictEqual(problemCode(yield* call("POST", `${grantsPath}/${toTeam.grant_id}/pause`, admin)), "grant/invalid")
      // Another tenant's grant ids are not found, for every method.
      const other = yield* server.tenant()
      for (const [method, path] of [["GET", ""], ["PATCH", ""], ["DELETE", ""], ["POST", "/pause"]] as const) {
        const answer = yield* call(method, `${grantsPath}/${toTeam.grant_id}${path}`, other.token, method === "PATCH" ? { watermark: true } : undefined)
        assert.strictEqual(problemCode(answer), "resource/not-found", `${method} ${path}`)
      }
      assert.deepStrictEqual((yield* ok("GET", grantsPath, undefined, other.token)).data, [])

      // The audit log has each change with its actor and payload; the firehose of events has created and revoked.
      const audit = (yield* ok("GET", "/v1/audit-log?target_type=grant&limit=100")).data
      const actions = audit.filter((e: any) => e.target.id === invited.grant_id).map((e: any) => e.action)
      assert.deepStrictEqual(actions, ["grant.revoked", "grant.updated", "grant.updated", "grant.created"])
      assert.deepInclude(audit.find((e: any) => e.action === "grant.created" && e.target.id === byAda.body.grant_id).actor, { id: ada.id })
      const events = (yield* ok("GET", `/v1/webhooks/${hook.webhook_id}/deliveries?limit=100`)).data.map((d: any) => d.event_type)
      assert.strictEqual(events.filter((t: string) => t === "sharing.grant.created").length, 6)
      assert.strictEqual(events.filter((t: string) => t === "sharing.grant.revoked").length, 1)
    }).pipe(Effect.scoped))

  it.live("a public link with a password: asks for it, counts failures per address (429 after 5), opens a session, renders read-only with the watermark; pause, revoke and expiry refuse it", () =>
    Effect.gen(function*() {
      const { admin, call, ok, reportId, server, workspaceId } = yield* setup
      const link = yield* ok("POST", grantsPath, passwordLink(reportId))
      assert.match(link.link_url, /^http:\/\/127\.0\.0\.1\/s\/[A-Za-z0-9_-]{32}$/)
      assert.deepInclude(link, { password_protected: true, paused: false, state: "active" })
      assert.notInclude(JSON.stringify(link), "correct horse")
      assert.notInclude(JSON.stringify(link), "argon2")
      const path = new URL(link.link_url).pathname
      const html = { accept: "text/html" }
      const json = { accept: "application/json" }
      // Without the password: a form for browsers, a problem for clients.
      const form = yield* server.request("GET", path, { headers: html })
      assert.strictEqual(form.status, 401)
      assert.include(form.headers.get("content-type"), "text/html")
      assert.include(form.text, `name="password"`)
      assert.notInclude(form.text, "Sales overview")
      assert.strictEqual(problemCode(yield* server.request("GET", path, { headers: json })), "share/password-required")
      // Wrong passwords count per address: 5 then 429 with Retry-After, even for the right one.
      const post = (password: string, headers: Record<string, string> = json) =>
        server.request("POST", path, { body: JSON.stringify({ password }), headers: { ...headers, "content-type": "application/json" } })
      for (let i = 0; i < 5; i++) assert.strictEqual(problemCode(yield* post(`wrong ${i}`)), "share/password-incorrect")
      const limited = yield* post("correct horse battery")
      assert.strictEqual(problemCode(limited), "rate-limit/password-attempts-exceeded")
      assert.isAbove(Number(limited.headers.get("retry-after")), 0)
      // Another address is not limited (the test server sees one address; a fresh server stands for another).
      const fresh = yield* setup
      const freshLink = yield* fresh.ok("POST", grantsPath, { subject_type: "report", subject_id: fresh.reportId, principal_type: "link", actions: ["view", "download"], password: "correct horse battery" })
      const freshPath = new URL(freshLink.link_url).pathname
      // A browser's form post: 303 back to the link, with the session cookie.
      const raw = yield* Effect.promise(() =>
        fetch(`${fresh.server.url}${freshPath}`, {
          method: "POST",
          body: "password=correct+horse+battery",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
          redirect: "manual"
        })
      )
      assert.strictEqual(raw.status, 303)
      assert.strictEqual(raw.headers.get("location"), freshPath)
      const cookie = raw.headers.get("set-cookie")!
      assert.match(cookie, /HttpOnly/i)
      assert.match(cookie, /SameSite=Lax/i)
      assert.include(cookie, `Path=${freshPath}`)
      const session = cookie.split(";")[0]!
      const page = yield* fresh.server.request("GET", freshPath, { headers: { ...html, cookie: session } })
      assert.strictEqual(page.status, 200, page.text)
      assert.include(page.text, "Sales overview")
      assert.include(page.text, "4,095")
      assert.strictEqual(page.headers.get("referrer-policy"), "no-referrer")
      assert.include(page.headers.get("content-security-policy"), "frame-ancestors 'none'")
      // download is granted here: the CSV is there, and its rows.
      assert.include(page.text, "Download CSV")
      const download = yield* fresh.server.request("GET", `${freshPath}/download/by_region`, { headers: { cookie: session } })
      assert.strictEqual(download.status, 200)
      assert.strictEqual(download.headers.get("content-disposition"), `attachment; filename="by_region.csv"`)
      assert.strictEqual(download.headers.get("x-content-type-options"), "nosniff")
      assert.strictEqual(download.text, "region,total_amount\r\nAPAC,1395\r\nEU,1335\r\nUS,1365\r\n")
      // A session cookie of another link, or none, opens nothing; a new password ends the session.
      assert.strictEqual(problemCode(yield* fresh.server.request("GET", `${freshPath}/download/by_region`, { headers: json })), "share/password-required")
      yield* fresh.ok("PATCH", `${grantsPath}/${freshLink.grant_id}`, { password: "a different secret" })
      assert.strictEqual(problemCode(yield* fresh.server.request("GET", freshPath, { headers: { ...json, cookie: session } })), "share/password-required")

      // A link with view only: read-only (no download, no comment), its recipient tiled as the watermark; no JSON view,
      // which would serve its rows without the watermark (decision 0014).
      const viewOnly = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"], watermark: true, email: "board@example.com" })
      const viewPath = new URL(viewOnly.link_url).pathname
      const viewed = yield* server.request("GET", viewPath, { headers: html })
      assert.strictEqual(viewed.status, 200, viewed.text)
      assert.notInclude(viewed.text, "Download CSV")
      assert.notInclude(viewed.text.toLowerCase(), "comment")
      assert.include(viewed.text, `data-watermark="board@example.com"`)
      assert.strictEqual((yield* server.request("GET", `${viewPath}/download/by_region`)).status, 403)
      const asJson = yield* server.request("GET", viewPath, { headers: json })
      assert.strictEqual(problemCode(asJson), "auth/forbidden")
      assert.include(asJson.body.detail, "watermarked")

      // One list of the workspace's links, with pause and resume.
      const links = (yield* ok("GET", `/v1/workspaces/${workspaceId}/links`)).data
      assert.sameMembers(links.map((g: any) => g.grant_id), [link.grant_id, viewOnly.grant_id])
      assert.strictEqual(problemCode(yield* call("GET", "/v1/workspaces/not-a-uuid/links", admin)), "request/invalid")
      assert.strictEqual(problemCode(yield* call("GET", `/v1/workspaces/${crypto.randomUUID()}/links`, admin)), "resource/not-found")
      assert.strictEqual(problemCode(yield* call("GET", `/v1/workspaces/${workspaceId}/links?state=gone`, admin)), "request/invalid")
      // Only an embed grant mints embed tokens.
      assert.strictEqual(problemCode(yield* call("POST", `${grantsPath}/${link.grant_id}/embed-tokens`, admin, {})), "grant/invalid")
      yield* ok("POST", `${grantsPath}/${viewOnly.grant_id}/pause`)
      assert.strictEqual(problemCode(yield* server.request("GET", viewPath, { headers: json })), "share/paused")
      const pausedPage = yield* server.request("GET", viewPath, { headers: html })
      assert.strictEqual(pausedPage.status, 403)
      assert.include(pausedPage.headers.get("content-type"), "text/html")
      yield* ok("POST", `${grantsPath}/${viewOnly.grant_id}/resume`)
      assert.strictEqual((yield* server.request("GET", viewPath, { headers: html })).status, 200)
      // Revoked: refused on the next request, for good.
      yield* ok("DELETE", `${grantsPath}/${viewOnly.grant_id}`)
      assert.strictEqual(problemCode(yield* server.request("GET", viewPath, { headers: json })), "share/revoked")
      assert.strictEqual(problemCode(yield* call("POST", `${grantsPath}/${viewOnly.grant_id}/resume`, admin)), "grant/not-active")
      // Expired: 403 share/expired, a page for browsers and a problem for clients, on the same URL.
      const expiring = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"], expires_at: new Date(Date.now() + 1000).toISOString() })
      const expiringPath = new URL(expiring.link_url).pathname
      assert.strictEqual((yield* server.request("GET", expiringPath, { headers: json })).status, 200)
      yield* Effect.sleep("1100 millis")
      assert.strictEqual(problemCode(yield* server.request("GET", expiringPath, { headers: json })), "share/expired")
      const expiredPage = yield* server.request("GET", expiringPath, { headers: html })
      assert.strictEqual(expiredPage.status, 403)
      assert.include(expiredPage.text, "This link has expired")
      // An unknown link is a 404.
      assert.strictEqual(problemCode(yield* server.request("GET", "/s/no-such-link", { headers: json })), "resource/not-found")
      // Views are metered per address: 120 in a burst (this test has used some), then 429 with Retry-After.
      let answer = yield* server.request("GET", "/s/no-such-link", { headers: json })
      for (let i = 0; i < 130 && answer.status !== 429; i++) answer = yield* server.request("GET", "/s/no-such-link", { headers: json })
      assert.strictEqual(problemCode(answer), "rate-limit/shared-views-exceeded")
      assert.isAbove(Number(answer.headers.get("retry-after")), 0)
      // The audit log never holds the password, its hash or the link's token.
      const audit = JSON.stringify((yield* ok("GET", "/v1/audit-log?limit=100")).data)
      for (const secret of ["correct horse", "$argon2", new URL(link.link_url).pathname.slice(3)]) assert.notInclude(audit, secret)
    }).pipe(Effect.scoped))

  it.live("embeds: a signed token and an iframe snippet; locked parameters and the viewer's attributes apply; tampered, foreign, expired and revoked tokens are refused", () =>
    Effect.gen(function*() {
      const { admin, call, ok, reportId, server } = yield* setup
      const embed = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view"] })
      assert.isString(embed.embed.token)
      assert.include(embed.embed.iframe, `src="${embed.embed.embed_url}"`)
      assert.match(embed.embed.embed_url, /^http:\/\/127\.0\.0\.1\/embed\?token=/)
      assert.isAtMost(new Date(embed.embed.expires_at).getTime() - Date.now(), 600_000)
      const view = (token: string) => server.request("GET", `/embed?token=${encodeURIComponent(token)}`, { headers: { accept: "application/json" } })
      // The first token has no attributes: row-level security for the role embed leaves no row, and the visual says so.
      const first = yield* view(embed.embed.token)
      assert.strictEqual(first.status, 200, first.text)
      assert.deepInclude(first.body.pages[0].visuals[1], { unavailable: "Nothing here is visible to you." })
      assert.notProperty(first.body.pages[0].visuals[1], "rows")
      const firstPage = yield* server.request("GET", `/embed?token=${encodeURIComponent(embed.embed.token)}`, { headers: { accept: "text/html" } })
      assert.include(firstPage.text, "Nothing here is visible to you.")
      // A token for an EU viewer: the policy binds their region.
      const eu = yield* ok("POST", `${grantsPath}/${embed.grant_id}/embed-tokens`, { attributes: { region: "EU", email: "viewer@partner.example" }, lifetime_seconds: 60 })
      const euView = yield* view(eu.token)
      assert.strictEqual(euView.status, 200, euView.text)
      assert.deepStrictEqual(euView.body.pages[0].visuals[1].rows, [{ region: "EU", total_amount: 1335 }])
      assert.isNull(euView.body.watermark)
      const page = yield* server.request("GET", new URL(eu.embed_url).pathname + new URL(eu.embed_url).search, { headers: { accept: "text/html" } })
      assert.include(page.headers.get("content-security-policy"), "frame-ancestors *")
      // A watermarked embed tiles the viewer's address, and has no JSON view (decision 0014).
      const marked = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view"], watermark: true })
      const markedToken = (yield* ok("POST", `${grantsPath}/${marked.grant_id}/embed-tokens`, { attributes: { region: "EU", email: "viewer@partner.example" } })).token as string
      assert.strictEqual(problemCode(yield* view(markedToken)), "auth/forbidden")
      const markedPage = yield* server.request("GET", `/embed?token=${encodeURIComponent(markedToken)}`, { headers: { accept: "text/html" } })
      assert.include(markedPage.text, `data-watermark="viewer@partner.example"`)
      // Locked parameters narrow further and cannot be lifted by the viewer.
      const locked = yield* ok("POST", `${grantsPath}/${embed.grant_id}/embed-tokens`, { attributes: { region: "EU" }, params: { region: "US" } })
      assert.deepStrictEqual((yield* view(locked.token)).body.pages[0].visuals[1].rows, [])
      // Its page says so in words, not with an empty table.
      const lockedPage = yield* server.request("GET", `/embed?token=${encodeURIComponent(locked.token)}`, { headers: { accept: "text/html" } })
      assert.include(lockedPage.text, "No rows match.")
      assert.notInclude(lockedPage.text, `<div class="kpi"></div>`)
      assert.notInclude(lockedPage.text, "Nothing here is visible to you.")
      // Lifetimes can only be shortened.
      assert.strictEqual(problemCode(yield* call("POST", `${grantsPath}/${embed.grant_id}/embed-tokens`, admin, { lifetime_seconds: 601 })), "request/invalid")
      // Refused: alg none, another key, another audience, a tampered payload.
      const [header, payload, signature] = (eu.token as string).split(".")
      const claims = JSON.parse(Buffer.from(payload!, "base64url").toString())
      const unsigned = new UnsecuredJWT(claims).encode()
      const otherKey = yield* Effect.promise(() => new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(new Uint8Array(32).fill(1)))
      const tampered = [header, Buffer.from(JSON.stringify({ ...claims, attributes: { region: "US" } })).toString("base64url"), signature].join(".")
      for (const token of [unsigned, otherKey, tampered, "garbage"]) assert.strictEqual(problemCode(yield* view(token)), "share/token-invalid", token)
      // Revoked: every token of the grant is refused from the next request.
      yield* ok("DELETE", `${grantsPath}/${embed.grant_id}`)
      assert.strictEqual(problemCode(yield* view(eu.token)), "share/revoked")
      assert.strictEqual(problemCode(yield* call("POST", `${grantsPath}/${embed.grant_id}/embed-tokens`, admin, {})), "grant/not-active")
      // An embed token that runs out: 401 share/token-expired.
      const short = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view"] })
      const oneSecond = yield* ok("POST", `${grantsPath}/${short.grant_id}/embed-tokens`, { lifetime_seconds: 1 })
      yield* Effect.sleep("2100 millis")
      assert.strictEqual(problemCode(yield* view(oneSecond.token)), "share/token-expired")
    }).pipe(Effect.scoped))
})
