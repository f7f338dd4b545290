/**
 * The people of a tenant: users, groups, the directory store, SCIM's shapes,
 * and the use cases on them (the admin's changes, the share dialog's people
 * picker).
 *
 * @since 0.1.0
 */
export * as DirectoryUseCases from "./DirectoryUseCases.ts"
export * as DirectoryStore from "./DirectoryStore.ts"
export * as Group from "./Group.ts"
export * as People from "./People.ts"
export * as Scim from "./Scim.ts"
export * as User from "./User.ts"
