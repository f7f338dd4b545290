/**
 * Who is calling: credentials, principals, callers, API tokens of a tenant,
 * the password hasher port, and console sessions.
 *
 * @since 0.1.0
 */
export * as Authenticator from "./Authenticator.ts"
export * as Caller from "./Caller.ts"
export * as PasswordHasher from "./PasswordHasher.ts"
export * as Principal from "./Principal.ts"
export * as Session from "./Session.ts"
export * as SessionStore from "./SessionStore.ts"
export * as Sessions from "./Sessions.ts"
export * as TenantTokens from "./TenantTokens.ts"
