/**
 * Questions asked in plain words, answered as semantic queries: the answerer
 * port and the built-in answerer.
 *
 * @since 0.1.0
 */
export * as Answerer from "./Answerer.ts"
export * as BuiltInAnswerer from "./BuiltInAnswerer.ts"
export * as Questions from "./Questions.ts"
