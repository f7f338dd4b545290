/**
 * SCIM mapping with the request bodies Okta and Microsoft Entra document
 * for their provisioning (their PATCH shapes differ).
 */
import { Scim, type Tenant, type User } from "@analytics/core"
import { ScimPayloads } from "@analytics/testing"
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"

const user: User.User = {
  user_id: "0194f0a2-7c4e-7b3a-9f1e-2d8c6b5a4f30" as User.UserId,
  tenant_id: "0194f0a2-7c4e-7b3a-9f1e-2d8c6b5a4f31" as Tenant.TenantId,
  email: "test.user@okta.local",
  name: "Test User",
  status: "active",
  roles: ["member"],
  external_id: "00ujl29u0le5T6Aj10h7",
  user_name: "test.user@okta.local",
  created_at: new Date("2026-11-01T00:00:00.000Z"),
  updated_at: new Date("2026-11-02T00:00:00.000Z")
}

const ok = <A>(result: Result.Result<A, Scim.ScimError>): A => {
  if (Result.isFailure(result)) throw new Error(`expected success, got ${result.failure.detail}`)
  return result.success
}
const failure = <A>(result: Result.Result<A, Scim.ScimError>) => {
  assert.isTrue(Result.isFailure(result))
  return Result.isFailure(result) ? result.failure : undefined!
}

describe("SCIM users", () => {
  it("reads Okta's create body", () => {
    const fields = ok(Scim.userFields(ScimPayloads.oktaUser))
    assert.deepStrictEqual(fields, {
      userName: "test.user@okta.local",
      email: "test.user@okta.local",
      name: "Test User",
      externalId: "00ujl29u0le5T6Aj10h7",
      active: true
    })
  })

  it("reads Entra's create body, whose userName is not an address", () => {
    const fields = ok(Scim.userFields({
      schemas: [Scim.urn.user, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
      userName: "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
      active: true,
      emails: [{ primary: true, type: "work", value: "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com" }],
      meta: { resourceType: "User" },
      name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
      roles: []
    }))
    assert.deepStrictEqual(fields, {
      userName: "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
      email: "test_user_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com",
      name: "givenName familyName",
      externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
      active: true
    })
  })

  it("refuses a user without any e-mail address, and bodies that are not resources", () => {
    assert.strictEqual(failure(Scim.userFields({ userName: "no-address" })).scimType, "invalidValue")
    assert.strictEqual(failure(Scim.userFields({ emails: [] })).detail, "userName is required")
    assert.strictEqual(failure(Scim.userFields([])).scimType, "invalidSyntax")
  })

  it("Okta deactivates with a path-less replace; Entra with a path and the string \"False\"", () => {
    const okta = { schemas: [Scim.urn.patchOp], Operations: [{ op: "replace", value: { active: false } }] }
    assert.deepStrictEqual(ok(Scim.userPatch(okta, user)), { active: false })
    const entra = { schemas: [Scim.urn.patchOp], Operations: [{ op: "Replace", path: "active", value: "False" }] }
    assert.deepStrictEqual(ok(Scim.userPatch(entra, user)), { active: false })
  })

  it("Entra's attribute updates: e-mail by filtered path, name parts, external id; unknown attributes are ignored", () => {
    const change = ok(Scim.userPatch({
      schemas: [Scim.urn.patchOp],
      Operations: [
        { op: "Replace", path: "emails[type eq \"work\"].value", value: "New.Address@example.com" },
        { op: "Replace", path: "name.familyName", value: "Lovelace" },
        { op: "Add", path: "externalId", value: "ext-2" },
        { op: "Replace", path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", value: "Finance" },
        { op: "Replace", path: "preferredLanguage", value: "en" }
      ]
    }, user))
    assert.deepStrictEqual(change, { email: "new.address@example.com", externalId: "ext-2", name: "Test Lovelace" })
    const renamed = ok(Scim.userPatch({ Operations: [{ op: "replace", value: { displayName: "Ada", userName: "ada@example.com" } }] }, user))
    assert.deepStrictEqual(renamed, { name: "Ada", email: "ada@example.com" })
  })

  it("refuses malformed operations", () => {
    for (const body of [{}, { Operations: [] }, { Operations: [{ op: "move", path: "active" }] }, { Operations: [{ op: "replace", path: "active", value: "maybe" }] }, { Operations: [{ op: "replace", value: 3 }] }]) {
      assert.strictEqual(failure(Scim.userPatch(body, user)).status, 400, JSON.stringify(body))
    }
  })

  it("writes our user as a SCIM User", () => {
    const resource = Scim.userResource({ ...user, status: "deprovisioned" }, "https://a.example.com/scim/v2")
    assert.deepInclude(resource, { id: user.user_id, userName: user.email, displayName: "Test User", active: false, externalId: "00ujl29u0le5T6Aj10h7" })
    assert.deepStrictEqual(resource.meta, {
      resourceType: "User",
      created: "2026-11-01T00:00:00.000Z",
      lastModified: "2026-11-02T00:00:00.000Z",
      location: `https://a.example.com/scim/v2/Users/${user.user_id}`
    })
  })
})

describe("SCIM groups", () => {
  it("reads a group with its members", () => {
    assert.deepStrictEqual(ok(Scim.groupFields({ schemas: [Scim.urn.group], displayName: "Test SCIMv2", members: [] })), {
      displayName: "Test SCIMv2",
      externalId: null,
      members: []
    })
    assert.deepStrictEqual(ok(Scim.groupFields({ displayName: "Ops", externalId: "g-1", members: [{ value: "u-1" }, { value: "u-2", display: "b" }] })).members, ["u-1", "u-2"])
    assert.strictEqual(failure(Scim.groupFields({ members: [] })).detail, "displayName is required")
    assert.strictEqual(failure(Scim.groupFields({ displayName: "x", members: [{ display: "no value" }] })).status, 400)
  })

  it("Okta: add members, remove one by filtered path, rename with a path-less replace", () => {
    assert.deepStrictEqual(ok(Scim.groupPatch({
      schemas: [Scim.urn.patchOp],
      Operations: [{ op: "add", path: "members", value: [{ value: "23a35c27-23d3-4c03-b4c5-6443c09e7173", display: "test.user@okta.local" }] }]
    })), { add: ["23a35c27-23d3-4c03-b4c5-6443c09e7173"], remove: [] })
    assert.deepStrictEqual(ok(Scim.groupPatch({
      schemas: [Scim.urn.patchOp],
      Operations: [{ op: "remove", path: "members[value eq \"89bb1940-b905-4575-9e7f-6f887cfb368e\"]" }]
    })), { add: [], remove: ["89bb1940-b905-4575-9e7f-6f887cfb368e"] })
    assert.deepStrictEqual(ok(Scim.groupPatch({
      schemas: [Scim.urn.patchOp],
      Operations: [{ op: "replace", value: { id: "abf4dd94-a4c0-4f67-89c9-76b03340cb9b", displayName: "Test SCIMv2" } }]
    })), { displayName: "Test SCIMv2", add: [], remove: [] })
  })

  it("Entra: add and remove members with a list of values, rename by path", () => {
    assert.deepStrictEqual(ok(Scim.groupPatch({
      schemas: [Scim.urn.patchOp],
      Operations: [
        { op: "Add", path: "members", value: [{ value: "u-1" }, { value: "u-2" }] },
        { op: "Remove", path: "members", value: [{ value: "u-3" }] },
        { op: "Replace", path: "displayName", value: "1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName" }
      ]
    })), { displayName: "1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName", add: ["u-1", "u-2"], remove: ["u-3"] })
  })

  it("replacing or removing all members, and refusals", () => {
    assert.deepStrictEqual(ok(Scim.groupPatch({ Operations: [{ op: "replace", path: "members", value: [{ value: "u-9" }] }] })).replaceMembers, ["u-9"])
    assert.deepStrictEqual(ok(Scim.groupPatch({ Operations: [{ op: "remove", path: "members" }] })).replaceMembers, [])
    assert.strictEqual(failure(Scim.groupPatch({ Operations: [{ op: "add", path: "members[value eq \"u-1\"]" }] })).scimType, "invalidSyntax")
    assert.strictEqual(failure(Scim.groupPatch({ Operations: [{ op: "replace", path: "displayName", value: "" }] })).status, 400)
  })
})

describe("SCIM filters and documents", () => {
  it("parses the eq filters identity providers send, and refuses others as invalidFilter", () => {
    assert.deepStrictEqual(ok(Scim.parseFilter("userName eq \"test.user@okta.local\"")), { attribute: "username", value: "test.user@okta.local" })
    assert.deepStrictEqual(ok(Scim.parseFilter("externalId eq \"0a21f0f2\"")), { attribute: "externalid", value: "0a21f0f2" })
    assert.deepStrictEqual(ok(Scim.parseFilter("DisplayName EQ \"Sales \\\"EMEA\\\"\"")), { attribute: "displayname", value: "Sales \"EMEA\"" })
    assert.strictEqual(ok(Scim.parseFilter(undefined)), undefined)
    for (const filter of ["userName sw \"a\"", "emails.value eq \"a\"", "userName eq a", "userName eq \"a\" or userName eq \"b\""]) {
      assert.strictEqual(failure(Scim.parseFilter(filter)).scimType, "invalidFilter", filter)
    }
  })

  it("errors, lists and discovery documents have RFC 7644's shapes", () => {
    assert.deepStrictEqual(Scim.errorBody(new Scim.ScimError({ status: 409, scimType: "uniqueness", detail: "taken" })), {
      schemas: [Scim.urn.error],
      status: "409",
      scimType: "uniqueness",
      detail: "taken"
    })
    assert.deepStrictEqual(Scim.listResponse([1, 2], 5, 1), { schemas: [Scim.urn.listResponse], totalResults: 5, startIndex: 1, itemsPerPage: 2, Resources: [1, 2] })
    const config = Scim.serviceProviderConfig("https://a.example.com/v1/docs")
    assert.deepStrictEqual([config.patch.supported, config.filter.supported, config.bulk.supported], [true, true, false])
    assert.deepStrictEqual(Scim.resourceTypes("https://a/scim/v2").map((r) => r.endpoint), ["/Users", "/Groups"])
    assert.deepStrictEqual(Scim.schemas("https://a/scim/v2").map((s) => s.id), [Scim.urn.user, Scim.urn.group])
  })
})
