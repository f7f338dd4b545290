/**
 * The problem class of each problem code, derived from `Problems` (each
 * class declares its code once, beside its status and title from core's
 * `ProblemCode` catalogue): the one table that turns a domain error's code
 * into the problem the endpoints declare (docs/decisions/0001, "Errors
 * mapped once"). A code no class declares (`route/not-found`, `internal`)
 * is answered through `Problems.undeclared`.
 *
 * @since 0.1.0
 */
import type { ProblemCode } from "@analytics/core"
import { SchemaAST } from "effect"
import * as Problems from "./Problems.ts"

type Exports = typeof Problems

/** The code the instances of a problem class carry (`never` for any other export). */
type CodeOf<P> = P extends abstract new(...args: any) => { readonly code: infer C extends ProblemCode.ProblemCode } ? C : never

/** The problem class of each code that has one, keyed by the code its class declares. */
export type ByCode = { readonly [K in keyof Exports as CodeOf<Exports[K]>]: Exports[K] }

/** A code some problem class of `Problems` declares. */
export type Code = keyof ByCode

/** The problem a code is answered with. */
export type ProblemOf<C extends Code> = InstanceType<ByCode[C]>

/** What the problem class of a code is made from: its `detail` and its extension members. */
export type FieldsOf<C extends Code> = Exclude<ConstructorParameters<ByCode[C]>[0], void | undefined>

/** The code a value of `Problems` declares, if it is a problem class: its `code` member's literal. */
const declaredCode = (value: unknown): string | undefined => {
  if (typeof value !== "function" || !("fields" in value)) return undefined
  const code = (value.fields as Record<string, { readonly ast?: SchemaAST.AST } | undefined>).code?.ast
  return code !== undefined && SchemaAST.isLiteral(code) && typeof code.literal === "string" ? code.literal : undefined
}

/** The problem class of each code, read off the classes `Problems` exports. */
export const byCode: ByCode = Object.fromEntries(
  Object.values(Problems).flatMap((value) => {
    const code = declaredCode(value)
    return code === undefined ? [] : [[code, value]]
  })
) as unknown as ByCode

/** Whether a code has a problem class of its own (else it is answered through `Problems.undeclared`). */
export const isDeclared = (code: string): code is Code => Object.hasOwn(byCode, code)
