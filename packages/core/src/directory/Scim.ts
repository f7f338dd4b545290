/**
 * SCIM 2.0 (RFC 7643, RFC 7644) as the directory speaks it: resources to
 * and from our users and teams, the `eq` filters identity providers send,
 * PATCH operations in both shapes that matter (Okta's and Microsoft
 * Entra's differ), errors and the discovery documents. Pure: the HTTP
 * routes and the store calls are elsewhere.
 *
 * Mapping (decision 0012): the user's e-mail is the primary (else work, else
 * first) of `emails`, else `userName` when that is an address (Okta's
 * usual case; Entra's `userName` may be something else, kept as given);
 * `displayName`, else `name.formatted`, else given and family names, is the
 * name; `active: false` deprovisions. SCIM groups are teams with source
 * `scim`.
 *
 * @since 0.1.0
 */
import { Result } from "effect"
import type { Group } from "./Group.ts"
import type { User } from "./User.ts"
import { TaggedFailure } from "../platform/Errors.ts"

/** The schema URNs used. */
export const urn = {
  user: "urn:ietf:params:scim:schemas:core:2.0:User",
  group: "urn:ietf:params:scim:schemas:core:2.0:Group",
  listResponse: "urn:ietf:params:scim:api:messages:2.0:ListResponse",
  patchOp: "urn:ietf:params:scim:api:messages:2.0:PatchOp",
  error: "urn:ietf:params:scim:api:messages:2.0:Error",
  serviceProviderConfig: "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig",
  resourceType: "urn:ietf:params:scim:schemas:core:2.0:ResourceType",
  schema: "urn:ietf:params:scim:schemas:core:2.0:Schema"
} as const

/** The media type of SCIM bodies. */
export const mediaType = "application/scim+json"

/** A SCIM error (RFC 7644 §3.12): its HTTP status, `scimType` when one applies, and words. */
export class ScimError extends TaggedFailure("ScimError")<{
  readonly status: number
  readonly scimType?: "invalidFilter" | "invalidSyntax" | "invalidValue" | "uniqueness" | "noTarget" | "mutability" | undefined
  readonly detail: string
}> {}

/** The body of a SCIM error response. */
export const errorBody = (error: ScimError) => ({
  schemas: [urn.error],
  status: String(error.status),
  ...(error.scimType === undefined ? {} : { scimType: error.scimType }),
  detail: error.detail
})

const invalid = (detail: string, scimType: ScimError["scimType"] = "invalidValue") =>
  Result.fail(new ScimError({ status: 400, scimType, detail }))

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Reads an attribute case-insensitively (SCIM attribute names are). */
const attribute = (body: Record<string, unknown>, name: string): unknown => {
  const lower = name.toLowerCase()
  for (const [key, value] of Object.entries(body)) if (key.toLowerCase() === lower) return value
  return undefined
}

/** A boolean as identity providers send it: `false`, or Entra's `"False"`. */
const booleanOf = (value: unknown): boolean | undefined =>
  typeof value === "boolean" ? value : typeof value === "string" && /^(true|false)$/i.test(value) ? value.toLowerCase() === "true" : undefined

// --- users ------------------------------------------------------------------------

/** What a SCIM user says about our user. */
export interface UserFields {
  /** The identity provider's user name, as given (what its `userName eq` filters look for). */
  readonly userName: string
  readonly email: string
  readonly name: string
  readonly externalId: string | null
  readonly active: boolean
}

/** The work (or primary, or first) e-mail of a SCIM `emails` list. */
const emailOf = (emails: unknown): string | undefined => {
  if (!Array.isArray(emails)) return undefined
  const values = emails.filter(isRecord)
  const pick = values.find((e) => attribute(e, "primary") === true) ?? values.find((e) => attribute(e, "type") === "work") ?? values[0]
  const value = pick === undefined ? undefined : attribute(pick, "value")
  return typeof value === "string" ? value : undefined
}

/** The name a SCIM user gives: `displayName`, `name.formatted`, given + family names, else the user name. */
const nameOf = (body: Record<string, unknown>, userName: string): string => {
  const display = attribute(body, "displayName")
  if (typeof display === "string" && display.trim() !== "") return display.trim()
  const name = attribute(body, "name")
  if (isRecord(name)) {
    const formatted = attribute(name, "formatted")
    if (typeof formatted === "string" && formatted.trim() !== "") return formatted.trim()
    const parts = [attribute(name, "givenName"), attribute(name, "familyName")].filter((p): p is string => typeof p === "string" && p.trim() !== "")
    if (parts.length > 0) return parts.join(" ").trim()
  }
  return userName
}

/** Reads a SCIM User resource (POST or PUT body). */
export const userFields = (body: unknown): Result.Result<UserFields, ScimError> => {
  if (!isRecord(body)) return invalid("The body is not a SCIM User resource", "invalidSyntax")
  const userName = attribute(body, "userName")
  if (typeof userName !== "string" || userName.trim() === "") return invalid("userName is required")
  const email = (emailOf(attribute(body, "emails")) ?? userName).trim().toLowerCase()
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 320) {
    return invalid("The user needs an e-mail address: give one in emails, or make userName one")
  }
  const externalId = attribute(body, "externalId")
  const active = attribute(body, "active")
  return Result.succeed({
    userName: userName.trim(),
    email,
    name: nameOf(body, userName.trim()).slice(0, 200),
    externalId: typeof externalId === "string" ? externalId : null,
    active: active === undefined ? true : booleanOf(active) ?? true
  })
}

/** Our user as a SCIM User resource. */
export const userResource = (user: User, baseUrl: string) => ({
  schemas: [urn.user],
  id: user.user_id,
  ...(user.external_id === null ? {} : { externalId: user.external_id }),
  userName: user.user_name ?? user.email,
  name: { formatted: user.name },
  displayName: user.name,
  emails: [{ value: user.email, type: "work", primary: true }],
  active: user.status === "active",
  meta: {
    resourceType: "User",
    created: user.created_at.toISOString(),
    lastModified: user.updated_at.toISOString(),
    location: `${baseUrl}/Users/${user.user_id}`
  }
})

/** What a PATCH changes on a user; absent fields stay as they are. */
export interface UserChange {
  readonly email?: string
  readonly name?: string
  readonly externalId?: string | null
  readonly active?: boolean
}

/** The operations of a PatchOp body. */
const operationsOf = (body: unknown): Result.Result<ReadonlyArray<{ op: string; path: string | undefined; value: unknown }>, ScimError> => {
  if (!isRecord(body)) return invalid("The body is not a SCIM PatchOp", "invalidSyntax")
  const operations = attribute(body, "Operations")
  if (!Array.isArray(operations) || operations.length === 0) return invalid("Operations must list at least one operation", "invalidSyntax")
  const out = []
  for (const operation of operations) {
    if (!isRecord(operation)) return invalid("Each operation is an object", "invalidSyntax")
    const op = attribute(operation, "op")
    if (typeof op !== "string" || !/^(add|replace|remove)$/i.test(op)) return invalid("op is add, replace or remove", "invalidSyntax")
    const path = attribute(operation, "path")
    if (path !== undefined && typeof path !== "string") return invalid("path is a string", "invalidSyntax")
    out.push({ op: op.toLowerCase(), path, value: attribute(operation, "value") })
  }
  return Result.succeed(out)
}

/**
 * The change a user PATCH asks for. Okta sends `replace` without a path and
 * an object value (`{"active": false}`); Entra sends one path per operation
 * (`"path": "active", "value": "False"`, `emails[type eq "work"].value`,
 * `name.givenName`). Attributes this directory does not keep are ignored.
 */
export const userPatch = (body: unknown, current: User): Result.Result<UserChange, ScimError> =>
  Result.flatMap(operationsOf(body), (operations): Result.Result<UserChange, ScimError> => {
    let change: { -readonly [K in keyof UserChange]: UserChange[K] } = {}
    const names = { given: undefined as string | undefined, family: undefined as string | undefined }
    const set = (path: string, value: unknown): Result.Result<void, ScimError> => {
      const p = path.toLowerCase()
      if (p === "active") {
        const active = booleanOf(value)
        if (active === undefined) return invalid("active is true or false")
        change.active = active
      } else if (p === "username" || p === "emails" || /^emails\[.*\]\.value$/.test(p) || p === "emails.value") {
        const email = typeof value === "string" ? value : p === "emails" ? emailOf(value) : undefined
        if (email === undefined || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) return invalid(`${path} is not an e-mail address`)
        // userName and the work e-mail are one thing here; a work e-mail given wins over the user name.
        if (p === "username" && change.email !== undefined) return Result.void
        change.email = email.trim().toLowerCase()
      } else if (p === "displayname" || p === "name.formatted") {
        if (typeof value !== "string" || value.trim() === "") return invalid(`${path} is a non-empty string`)
        change.name = value.trim().slice(0, 200)
      } else if (p === "name.givenname" && typeof value === "string") names.given = value
      else if (p === "name.familyname" && typeof value === "string") names.family = value
      else if (p === "externalid") change.externalId = typeof value === "string" ? value : null
      return Result.void
    }
    for (const { op, path, value } of operations) {
      if (op === "remove") {
        if (path?.toLowerCase() === "externalid") change.externalId = null
        continue
      }
      if (path === undefined) {
        if (!isRecord(value)) return invalid("An operation without a path carries an object value")
        for (const [key, inner] of Object.entries(value)) {
          if (key.toLowerCase() === "name" && isRecord(inner)) {
            for (const [part, v] of Object.entries(inner)) {
              const r = set(`name.${part}`, v)
              if (Result.isFailure(r)) return Result.fail(r.failure)
            }
          } else {
            const r = set(key, inner)
            if (Result.isFailure(r)) return Result.fail(r.failure)
          }
        }
      } else {
        const r = set(path, value)
        if (Result.isFailure(r)) return Result.fail(r.failure)
      }
    }
    if (change.name === undefined && (names.given !== undefined || names.family !== undefined)) {
      const [given, family] = current.name.split(" ", 2)
      change = { ...change, name: [names.given ?? given, names.family ?? family].filter((p) => p).join(" ").slice(0, 200) }
    }
    return Result.succeed(change)
  })

// --- groups -------------------------------------------------------------------------

/** What a SCIM group says about our team. */
export interface GroupFields {
  readonly displayName: string
  readonly externalId: string | null
  readonly members: ReadonlyArray<string>
}

const memberIds = (members: unknown): Result.Result<ReadonlyArray<string>, ScimError> => {
  if (members === undefined) return Result.succeed([])
  if (!Array.isArray(members)) return invalid("members is a list")
  const ids: Array<string> = []
  for (const member of members) {
    const value = isRecord(member) ? attribute(member, "value") : undefined
    if (typeof value !== "string") return invalid("Each member has a value: the user's id")
    ids.push(value)
  }
  return Result.succeed(ids)
}

/** Reads a SCIM Group resource (POST or PUT body). */
export const groupFields = (body: unknown): Result.Result<GroupFields, ScimError> => {
  if (!isRecord(body)) return invalid("The body is not a SCIM Group resource", "invalidSyntax")
  const displayName = attribute(body, "displayName")
  if (typeof displayName !== "string" || displayName.trim() === "") return invalid("displayName is required")
  const externalId = attribute(body, "externalId")
  return Result.map(memberIds(attribute(body, "members")), (members) => ({
    displayName: displayName.trim().slice(0, 200),
    externalId: typeof externalId === "string" ? externalId : null,
    members
  }))
}

/** Our team as a SCIM Group resource, with its members' ids. */
export const groupResource = (group: Group, members: ReadonlyArray<{ readonly id: string; readonly display: string }>, baseUrl: string) => ({
  schemas: [urn.group],
  id: group.group_id,
  ...(group.external_id === null ? {} : { externalId: group.external_id }),
  displayName: group.name,
  members: members.map((m) => ({ value: m.id, display: m.display, $ref: `${baseUrl}/Users/${m.id}` })),
  meta: {
    resourceType: "Group",
    created: group.created_at.toISOString(),
    lastModified: group.updated_at.toISOString(),
    location: `${baseUrl}/Groups/${group.group_id}`
  }
})

/** What a group PATCH asks for, in order: a new name, members to add and to remove, or all members replaced. */
export interface GroupChange {
  readonly displayName?: string
  readonly externalId?: string | null
  readonly add: ReadonlyArray<string>
  readonly remove: ReadonlyArray<string>
  /** Set when an operation replaced the whole member list. */
  readonly replaceMembers?: ReadonlyArray<string>
}

/** `members[value eq "id"]`: Okta's way to remove one member. */
const memberFilter = /^members\s*\[\s*value\s+eq\s+"((?:[^"\\]|\\.)*)"\s*\]$/i

/**
 * The change a group PATCH asks for. Okta removes with a filtered path
 * (`members[value eq "id"]`) and renames with `replace` of an object value;
 * Entra adds and removes with `"path": "members"` and a list of `{value}`.
 */
export const groupPatch = (body: unknown): Result.Result<GroupChange, ScimError> =>
  Result.flatMap(operationsOf(body), (operations): Result.Result<GroupChange, ScimError> => {
    let displayName: string | undefined
    let externalId: string | null | undefined
    const add: Array<string> = []
    const remove: Array<string> = []
    let replaceMembers: ReadonlyArray<string> | undefined
    for (const { op, path, value } of operations) {
      const p = path?.toLowerCase()
      const filtered = path === undefined ? null : memberFilter.exec(path.trim())
      if (filtered !== null) {
        if (op !== "remove") return invalid("Only remove takes a filtered members path", "invalidSyntax")
        remove.push(filtered[1].replace(/\\(.)/g, "$1"))
        continue
      }
      if (p === "members") {
        if (op === "remove" && value === undefined) {
          replaceMembers = []
          continue
        }
        const ids = memberIds(value)
        if (Result.isFailure(ids)) return Result.fail(ids.failure)
        if (op === "add") add.push(...ids.success)
        else if (op === "remove") remove.push(...ids.success)
        else replaceMembers = ids.success
        continue
      }
      const fields: Record<string, unknown> = p === undefined
        ? (isRecord(value) ? value : {})
        : { [path!]: value }
      if (p === undefined && !isRecord(value)) return invalid("An operation without a path carries an object value")
      for (const [key, inner] of Object.entries(fields)) {
        const k = key.toLowerCase()
        if (k === "displayname") {
          if (op === "remove" || typeof inner !== "string" || inner.trim() === "") return invalid("displayName is a non-empty string")
          displayName = inner.trim().slice(0, 200)
        } else if (k === "externalid") externalId = op === "remove" || typeof inner !== "string" ? null : inner
        else if (k === "members") {
          const ids = memberIds(inner)
          if (Result.isFailure(ids)) return Result.fail(ids.failure)
          replaceMembers = ids.success
        }
      }
    }
    return Result.succeed({
      ...(displayName === undefined ? {} : { displayName }),
      ...(externalId === undefined ? {} : { externalId }),
      add,
      remove,
      ...(replaceMembers === undefined ? {} : { replaceMembers })
    })
  })

// --- filters, lists, discovery --------------------------------------------------------------

/** A filter this directory answers: one attribute, `eq`, a string. */
export interface Filter {
  readonly attribute: "username" | "externalid" | "displayname"
  readonly value: string
}

/** Parses the `filter` parameter: `userName eq "…"`, `externalId eq "…"`, `displayName eq "…"` (what IdPs send). */
export const parseFilter = (input: string | undefined): Result.Result<Filter | undefined, ScimError> => {
  if (input === undefined || input.trim() === "") return Result.succeed(undefined)
  const match = /^\s*(userName|externalId|displayName)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i.exec(input)
  if (match === null) {
    return Result.fail(new ScimError({
      status: 400,
      scimType: "invalidFilter",
      detail: "Supported filters: userName eq \"…\", externalId eq \"…\", displayName eq \"…\""
    }))
  }
  return Result.succeed({ attribute: match[1].toLowerCase() as Filter["attribute"], value: match[2].replace(/\\(.)/g, "$1") })
}

/** A list response (RFC 7644 §3.4.2). */
export const listResponse = <A>(resources: ReadonlyArray<A>, totalResults: number, startIndex: number) => ({
  schemas: [urn.listResponse],
  totalResults,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources
})

/** The most resources one list answers. */
export const maxResults = 200

/** `/ServiceProviderConfig`: what this service supports. */
export const serviceProviderConfig = (documentationUri: string) => ({
  schemas: [urn.serviceProviderConfig],
  documentationUri,
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [{
    type: "oauthbearertoken",
    name: "Bearer token",
    description: "The tenant's SCIM token, sent as Authorization: Bearer <token>",
    primary: true
  }]
})

/** `/ResourceTypes`: Users and Groups. */
export const resourceTypes = (baseUrl: string) => [
  { schemas: [urn.resourceType], id: "User", name: "User", endpoint: "/Users", schema: urn.user, meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/User` } },
  { schemas: [urn.resourceType], id: "Group", name: "Group", endpoint: "/Groups", schema: urn.group, meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/Group` } }
]

const attributeOf = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...extra
})

/** `/Schemas`: the attributes this directory keeps. */
export const schemas = (baseUrl: string) => [
  {
    schemas: [urn.schema],
    id: urn.user,
    name: "User",
    attributes: [
      attributeOf("userName", "string", { required: true, uniqueness: "server" }),
      attributeOf("displayName", "string"),
      attributeOf("name", "complex", { subAttributes: [attributeOf("formatted", "string"), attributeOf("givenName", "string"), attributeOf("familyName", "string")] }),
      attributeOf("emails", "complex", { multiValued: true, subAttributes: [attributeOf("value", "string"), attributeOf("type", "string"), attributeOf("primary", "boolean")] }),
      attributeOf("active", "boolean"),
      attributeOf("externalId", "string", { caseExact: true })
    ],
    meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${urn.user}` }
  },
  {
    schemas: [urn.schema],
    id: urn.group,
    name: "Group",
    attributes: [
      attributeOf("displayName", "string", { required: true }),
      attributeOf("members", "complex", { multiValued: true, subAttributes: [attributeOf("value", "string", { mutability: "immutable" }), attributeOf("display", "string", { mutability: "readOnly" })] }),
      attributeOf("externalId", "string", { caseExact: true })
    ],
    meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${urn.group}` }
  }
]
