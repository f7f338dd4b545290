/**
 * A host killed with SIGKILL while an idempotent POST is in flight, on
 * PostgreSQL (decision 0004): the handler's transaction dies with the
 * process, so nothing was created, but the key's reservation (committed
 * before the handler ran) stays without a response. Retried on a restarted
 * host with the same key and body: 409 `idempotency/in-progress` while the
 * reservation is younger than a minute, then the retry takes the abandoned
 * reservation over and creates the resource, once; later retries replay it.
 *
 * The request is caught in flight by a lock the test holds on the table it
 * writes to, so the kill lands between the reservation and the commit every
 * time. The minute is `Idempotency.inFlightTimeout`, which the host does not
 * let one configure: this file waits it out (about 70 s in all).
 */
import { databaseUrl, skippedForNoPostgres } from "@analytics/testing/postgres"
import { randomUUID } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import { call, type Cleanups, freePort, freshDatabaseUrl, healthy, type Host, run, stop } from "./HostProcess.ts"
import { holdLock, query, until } from "./PostgresProbe.ts"

const cleanups: Cleanups = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** POST with an Idempotency-Key; the status, the replay header and the body. */
const post = async (host: Host, token: string, path: string, key: string, body: unknown) => {
  const response = await fetch(host.url + path, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000)
  })
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    replayed: response.headers.get("idempotent-replayed"),
    body: await response.json() as any
  }
}

describe.skipIf(databaseUrl === "")(`an idempotent POST in flight when the host dies${databaseUrl === "" ? ` ${skippedForNoPostgres}` : ""}`, () => {
  it("kill -9 mid-request: 409 while the reservation is fresh, then one resource and replays; never stuck", async () => {
    const url = await freshDatabaseUrl(cleanups)
    const token = `idempotent-${randomUUID()}`
    const environment = async () => ({
      PORT: String(await freePort()),
      ANALYTICS_STORE: "postgres",
      DATABASE_URL: url,
      ANALYTICS_BOOTSTRAP_TOKEN: token,
      LOG_LEVEL: "warn"
    })
    const first = run(["serve"], await environment())
    cleanups.push(async () => void (await stop(first)))
    await healthy(first, 60_000)
    // API requests wait for storage to be ready (migrated): the lock below needs the table.
    expect((await call(first, "GET", "/v1/workspaces", token)).status).toBe(200)
    const key = `create-once-${randomUUID()}`
    const body = { name: `Once ${key}` }

    // Inserts into workspaces wait behind the test's lock; reads do not.
    const lock = await holdLock(url, "LOCK TABLE workspaces IN EXCLUSIVE MODE")
    const inFlight = post(first, token, "/v1/workspaces", key, body).then(
      (answer) => ({ answered: answer }),
      (error) => ({ failed: String(error) })
    )
    // Reserved (committed, without a response) and its INSERT waiting on the lock: the request is mid-handler.
    await until("the request to reserve its key and wait on the lock", async () => {
      const [row] = await query<{ reserved: number; waiting: number }>(url, `SELECT
          (SELECT count(*) FROM idempotency_keys WHERE key = '${key}' AND response_status IS NULL)::int AS reserved,
          (SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%insert%workspaces%')::int AS waiting`)
      return row!.reserved === 1 && row!.waiting === 1 ? true : undefined
    }, 30_000)
    first.process.kill("SIGKILL")
    expect(await first.exited).toBe("SIGKILL")
    expect(await inFlight).toHaveProperty("failed")
    // The dead host's transaction is rolled back once its INSERT gets the lock and finds the client gone.
    await lock.release()
    await until("the dead host's session to end", async () => {
      const [row] = await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query ILIKE '%insert%workspaces%' AND pid <> pg_backend_pid()`)
      return row!.n === 0 ? true : undefined
    }, 30_000)
    const named = async (host: Host) =>
      (await call(host, "GET", "/v1/workspaces?limit=100", token)).body.data.filter((w: any) => w.name === body.name)

    const second = run(["serve"], await environment())
    cleanups.push(async () => void (await stop(second)))
    await healthy(second, 60_000)
    expect(await named(second)).toEqual([])

    // The reservation is under a minute old: the retry is told the first is still running, as a problem.
    const early = await post(second, token, "/v1/workspaces", key, body)
    expect(early).toMatchObject({ status: 409, contentType: expect.stringMatching(/^application\/problem\+json/), body: { code: "idempotency/in-progress" } })
    // Another body under the same key is refused as ever.
    expect((await post(second, token, "/v1/workspaces", key, { name: "Something else" })).status).toBe(422)

    // Retried every two seconds, as a client would: after the minute the reservation is taken over.
    const [{ reserved_at }] = await query<{ reserved_at: Date }>(url, `SELECT created_at AS reserved_at FROM idempotency_keys WHERE key = '${key}'`) as [{ reserved_at: Date }]
    const created = await until("the retry to take the abandoned reservation over", async () => {
      const retry = await post(second, token, "/v1/workspaces", key, body)
      if (retry.status === 409) {
        expect(retry.body.code).toBe("idempotency/in-progress")
        expect(Date.now() - new Date(reserved_at).getTime()).toBeLessThan(75_000)
        await new Promise((resolve) => setTimeout(resolve, 2_000))
        return undefined
      }
      return retry
    }, 90_000)
    expect(created).toMatchObject({ status: 201, replayed: null, body: { name: body.name } })
    expect(Date.now() - new Date(reserved_at).getTime()).toBeGreaterThanOrEqual(60_000)

    // From now on the key replays that response; one workspace exists.
    const replay = await post(second, token, "/v1/workspaces", key, body)
    expect(replay).toMatchObject({ status: 201, replayed: "true", body: { workspace_id: created.body.workspace_id } })
    expect((await named(second)).map((w: any) => w.workspace_id)).toEqual([created.body.workspace_id])
  }, 150_000)
})
