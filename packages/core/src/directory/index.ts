/**
 * The people of a tenant as records: users, groups, the directory store, and
 * SCIM's shapes.
 *
 * It imports only from the folders before it in core's index.
 *
 * @since 0.1.0
 */
export * as DirectoryStore from "./DirectoryStore.ts"
export * as Group from "./Group.ts"
export * as People from "./People.ts"
export * as Scim from "./Scim.ts"
export * as User from "./User.ts"
