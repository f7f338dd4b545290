import { MemoryStores } from "@analytics/adapter-memory"
import { type Tenant, type Workspace, WorkspaceStore } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect } from "effect"
import { TestClock } from "effect/testing"
import { problemCode, start, type TestServer } from "./TestServer.ts"

const create = (server: TestServer, token: string, names: ReadonlyArray<string>) =>
  Effect.forEach(names, (name) =>
    Effect.flatMap(server.request("POST", "/v1/workspaces", { token, body: { name } }), (r) => {
      assert.strictEqual(r.status, 201, r.text)
      return Effect.succeed(r.body as { workspace_id: string; name: string; created_at: string })
    }))

/** Follows next_cursor from `path` to the end; returns every page. */
const walk = (server: TestServer, token: string, path: string, between?: (page: number) => Effect.Effect<void, unknown>) =>
  Effect.gen(function*() {
    const pages: Array<{ data: Array<any>; page: any }> = []
    let next: string = path
    for (let i = 0; i < 100; i++) {
      const response = yield* server.request("GET", next, { token })
      assert.strictEqual(response.status, 200, response.text)
      pages.push(response.body)
      if (response.body.page.next_cursor === null) {
        assert.isFalse(response.body.page.has_more)
        return pages
      }
      assert.isTrue(response.body.page.has_more)
      const separator = path.includes("?") ? "&" : "?"
      next = `${path}${separator}cursor=${encodeURIComponent(response.body.page.next_cursor)}`
      if (between) yield* between(i)
    }
    throw new Error("pagination did not end")
  })

const names = (pages: ReadonlyArray<{ data: Array<{ name: string }> }>) => pages.flatMap((p) => p.data.map((w) => w.name))

describe("cursor pagination over HTTP", () => {
  it.effect("limit: default 50, 1..500, anything else is a 400 problem", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const first = yield* server.request("GET", "/v1/workspaces", { token })
      assert.strictEqual(first.body.page.limit, 50)
      for (const limit of ["1", "500"]) {
        const ok = yield* server.request("GET", `/v1/workspaces?limit=${limit}`, { token })
        assert.strictEqual(ok.status, 200)
        assert.strictEqual(ok.body.page.limit, Number(limit))
      }
      for (const limit of ["0", "501", "-1", "2.5", "abc", "", "1e3"]) {
        const bad = yield* server.request("GET", `/v1/workspaces?limit=${limit}`, { token })
        assert.strictEqual(bad.status, 400, `limit=${limit}`)
        assert.strictEqual(problemCode(bad), "request/invalid")
      }
      const offset = yield* server.request("GET", "/v1/workspaces?offset=10", { token })
      assert.strictEqual(offset.status, 400)
      const page = yield* server.request("GET", "/v1/workspaces?page=2", { token })
      assert.strictEqual(page.status, 400)
    }).pipe(Effect.scoped))

  it.effect("walks every page newest first, without duplicates or gaps, ending in null", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const all = Array.from({ length: 11 }, (_, i) => `w${String(i).padStart(2, "0")}`)
      // pairs share a timestamp so the id tiebreak is exercised
      for (const [i, name] of all.entries()) {
        yield* create(server, token, [name])
        if (i % 2 === 1) yield* TestClock.adjust("1 second")
      }
      for (const limit of [1, 2, 3, 4, 11, 50]) {
        const pages = yield* walk(server, token, `/v1/workspaces?limit=${limit}`)
        assert.strictEqual(pages.length, Math.max(1, Math.ceil(11 / limit)))
        const seen = names(pages)
        assert.strictEqual(new Set(seen).size, 11)
        const times = pages.flatMap((p) => p.data.map((w: { created_at: string }) => w.created_at))
        assert.deepStrictEqual(times, [...times].sort().reverse())
      }
      const byName = yield* walk(server, token, "/v1/workspaces?limit=4&sort=name")
      assert.deepStrictEqual(names(byName), [...all].sort())
      const byNameDesc = yield* walk(server, token, "/v1/workspaces?limit=4&sort=-name")
      assert.deepStrictEqual(names(byNameDesc), [...all].sort().reverse())
      const oldest = yield* walk(server, token, "/v1/workspaces?limit=5&sort=created_at")
      // w00 and w01 share a timestamp, so either may come first (ties go by id)
      assert.sameMembers(names(oldest).slice(0, 2), ["w00", "w01"])
      assert.sameMembers(names(oldest).slice(-1), ["w10"])
    }).pipe(Effect.scoped))

  it.effect("rows created after the first page are not seen; deletions cause no skips", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { tenantId, token } = yield* server.tenant()
      const created = yield* create(server, token, ["a", "b", "c", "d", "e", "f"])
      const store = Context.get(server.stores, WorkspaceStore.WorkspaceStore)
      const byName = new Map(created.map((w) => [w.name, w.workspace_id]))
      const pages = yield* walk(server, token, "/v1/workspaces?limit=2&sort=name", (page) =>
        Effect.gen(function*() {
          if (page !== 0) return
          // after page one (a, b): delete the last row seen and the next one unseen, add two new rows
          yield* store.remove(tenantId as Tenant.TenantId, byName.get("b") as Workspace.WorkspaceId)
          yield* store.remove(tenantId as Tenant.TenantId, byName.get("c") as Workspace.WorkspaceId)
          yield* TestClock.adjust("1 millis")
          yield* create(server, token, ["bb", "zz"])
        }))
      assert.deepStrictEqual(names(pages), ["a", "b", "d", "e", "f"])
      const restarted = yield* walk(server, token, "/v1/workspaces?limit=2&sort=name")
      assert.deepStrictEqual(names(restarted), ["a", "bb", "d", "e", "f", "zz"])
    }).pipe(Effect.scoped))

  it.effect("a cursor is bound to its whole query string and tenant, tamper-proof, and valid for 24 hours", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      yield* create(server, token, ["a", "b", "c"])
      const first = yield* server.request("GET", "/v1/workspaces?limit=1&sort=name", { token })
      const cursor: string = first.body.page.next_cursor
      assert.match(cursor, /^[A-Za-z0-9_-]+$/)

      const otherSort = yield* server.request("GET", `/v1/workspaces?limit=1&sort=-name&cursor=${cursor}`, { token })
      assert.strictEqual(otherSort.status, 400)
      assert.strictEqual(problemCode(otherSort), "pagination/cursor-mismatch")
      const noSort = yield* server.request("GET", `/v1/workspaces?limit=1&cursor=${cursor}`, { token })
      assert.strictEqual(problemCode(noSort), "pagination/cursor-mismatch")
      const otherLimit = yield* server.request("GET", `/v1/workspaces?limit=2&sort=name&cursor=${cursor}`, { token })
      assert.strictEqual(otherLimit.status, 400, "the page size is part of the bound query string")
      assert.strictEqual(problemCode(otherLimit), "pagination/cursor-mismatch")
      const sameQuery = yield* server.request("GET", `/v1/workspaces?limit=1&sort=name&cursor=${cursor}`, { token })
      assert.deepStrictEqual(sameQuery.body.data.map((w: { name: string }) => w.name), ["b"])

      const flipped = cursor.slice(0, 5) + (cursor[5] === "A" ? "B" : "A") + cursor.slice(6)
      for (const forged of [flipped, "abc", "a.b", "x".repeat(5000), cursor + "x", "%00"]) {
        const response = yield* server.request("GET", `/v1/workspaces?limit=1&sort=name&cursor=${encodeURIComponent(forged)}`, { token })
        assert.strictEqual(response.status, 400, forged.slice(0, 20))
        assert.include(["pagination/cursor-invalid", "request/invalid"], problemCode(response))
      }

      const other = yield* server.tenant()
      const crossTenant = yield* server.request("GET", `/v1/workspaces?limit=1&sort=name&cursor=${cursor}`, { token: other.token })
      assert.strictEqual(crossTenant.status, 400, "another tenant's cursor is refused, never a page")
      assert.strictEqual(problemCode(crossTenant), "pagination/cursor-mismatch")

      yield* TestClock.adjust("24 hours")
      const stillValid = yield* server.request("GET", `/v1/workspaces?limit=1&sort=name&cursor=${cursor}`, { token })
      assert.strictEqual(stillValid.status, 200)
      yield* TestClock.adjust("1 millis")
      const expired = yield* server.request("GET", `/v1/workspaces?limit=1&sort=name&cursor=${cursor}`, { token })
      assert.strictEqual(expired.status, 400)
      assert.strictEqual(problemCode(expired), "pagination/cursor-expired")
    }).pipe(Effect.scoped))

  it.effect("tenants are isolated: another tenant's workspaces are never listed", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const a = yield* server.tenant()
      const b = yield* server.tenant()
      yield* create(server, a.token, ["mine"])
      const listB = yield* server.request("GET", "/v1/workspaces", { token: b.token })
      assert.deepStrictEqual(listB.body.data, [])
      const listA = yield* server.request("GET", "/v1/workspaces", { token: a.token })
      assert.deepStrictEqual(listA.body.data.map((w: { name: string }) => w.name), ["mine"])
      assert.notProperty(listA.body.data[0], "tenant_id")
    }).pipe(Effect.scoped))
})
