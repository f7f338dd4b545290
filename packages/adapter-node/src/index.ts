/**
 * @analytics/adapter-node: the platform ports of core on Node.
 *
 * @since 0.1.0
 */
export * as Argon2PasswordHasher from "./Argon2PasswordHasher.ts"
export * as FileBlobStore from "./FileBlobStore.ts"
export * as NodeCrypto from "./NodeCrypto.ts"
export * as NodePlatform from "./NodePlatform.ts"
export * as V8Flags from "./V8Flags.ts"
