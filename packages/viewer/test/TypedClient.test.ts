/**
 * The console's client is typed by the contract: a call answers its
 * endpoint's success as JSON without the caller naming it, a path with
 * ids (`v1/reports/${id}`) finds the endpoint of its shape, and a path or
 * method the contract does not have does not compile, and a body is the
 * endpoint's payload as JSON (a wrong field or value does not compile). The calls are never
 * made (the client is given a `fetch` that answers nothing): only their
 * types are checked, by the compiler under `tsc -b`.
 */
import type { Groups, Json } from "@analytics/api"
import type { Workspace } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { expectTypeOf } from "vitest"
import type { ApiClient } from "../src/client/ApiClient.ts"
import type { EndpointAt, PayloadAt } from "../src/client/ApiPaths.ts"

/** The answer of a call, unwrapped from its promise. */
type Answer<F extends (...args: ReadonlyArray<never>) => Promise<unknown>> = Awaited<ReturnType<F>>

describe("the console's client, typed from the contract", () => {
  it("answers each endpoint's success as JSON, by method and path", () => {
    const typed = (client: ApiClient, id: string) => {
      const workspaces = () => client.get("v1/workspaces")
      expectTypeOf<Answer<typeof workspaces>["data"][number]>().toEqualTypeOf<Json<typeof Groups.Workspaces.WorkspaceJson>>()
      const page = () => client.list("v1/workspaces?limit=20", "c/1")
      expectTypeOf<Answer<typeof page>>().toEqualTypeOf<Answer<typeof workspaces>>()
      const report = () => client.get(`v1/reports/${encodeURIComponent(id)}`)
      expectTypeOf<Answer<typeof report>>().toEqualTypeOf<Json<typeof Groups.Reports.ReportJson>>()
      // The longer path of the same start is its own endpoint.
      const result = () => client.get(`v1/jobs/${id}/result`)
      expectTypeOf<Answer<typeof result>>().toEqualTypeOf<Json<typeof Groups.Exports.JobResultJson>>()
      const session = () => client.post("api/session/token", { api_token: "t" }, { signedOut: true })
      expectTypeOf<Answer<typeof session>["csrf_token"]>().toEqualTypeOf<string>()
      // No content is nothing.
      const signOut = () => client.delete("api/session")
      expectTypeOf<Answer<typeof signOut>>().toEqualTypeOf<void>()
      expectTypeOf<EndpointAt<"GET", `v1/webhooks/${string}/secret`>["identifier"]>().toEqualTypeOf<"secret">()
    }
    assert.isFunction(typed)
  })

  it("does not compile a path or method the contract does not have", () => {
    const refused = (client: ApiClient, id: string) => [
      // @ts-expect-error: no such path
      client.get("v1/nothing"),
      // @ts-expect-error: a path of the right start and the wrong end
      client.get(`v1/reports/${id}/nothing`),
      // @ts-expect-error: a path of the contract, but not for this method
      client.patch("v1/workspaces", {}),
      // @ts-expect-error: a path built at run time says nothing of its endpoint
      client.get(String(id))
    ]
    assert.isFunction(refused)
  })

  it("sends each endpoint's payload as JSON, and no other body", () => {
    expectTypeOf<PayloadAt<"POST", "v1/workspaces">>().toEqualTypeOf<Json<typeof Workspace.WorkspaceCreate>>()
    expectTypeOf<PayloadAt<"POST", "v1/sharing/grants">["subject_type"]>().toEqualTypeOf<"report" | "dashboard" | "dataset" | "workspace">()
    const bodies = (client: ApiClient, id: string) => [
      client.post("v1/workspaces", { name: "Sales" }),
      client.patch(`v1/alerts/${id}`, { threshold: 10 }),
      // @ts-expect-error: a field the payload does not have
      client.post("v1/workspaces", { name: "Sales", colour: "red" }),
      // @ts-expect-error: a value the payload does not take
      client.patch(`v1/alerts/${id}`, { condition: "above" }),
      // @ts-expect-error: a required field missing
      client.post("v1/webhooks", { events: ["audit.event"] })
    ]
    assert.isFunction(bodies)
  })
})
