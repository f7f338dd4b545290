/**
 * Everything Node offers core in one layer: `node:crypto`'s primitives and
 * Argon2id password hashing. The file blob store takes a directory, so it
 * is wired on its own (`FileBlobStore.layer(directory)`).
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import * as Argon2PasswordHasher from "./Argon2PasswordHasher.ts"
import * as NodeCrypto from "./NodeCrypto.ts"

/** `NodeCrypto.layer` and `Argon2PasswordHasher.layer`. */
export const layer = Layer.mergeAll(NodeCrypto.layer, Argon2PasswordHasher.layer)
