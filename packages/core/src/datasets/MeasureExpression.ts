/**
 * Derived measures' expressions: measure names, numbers, + - * /, unary
 * minus and parentheses, parsed into a tree the SQL compiler renders. Only
 * this grammar exists, so a model cannot smuggle SQL through an expression.
 *
 * @since 0.1.0
 */
import { TaggedFailure } from "../platform/Errors.ts"

/** A parsed expression. */
export type Expression =
  | { readonly _tag: "Number"; readonly value: number }
  | { readonly _tag: "Measure"; readonly name: string }
  | { readonly _tag: "Negate"; readonly operand: Expression }
  | { readonly _tag: "Binary"; readonly operator: "+" | "-" | "*" | "/"; readonly left: Expression; readonly right: Expression }

/** The text is not an expression of the grammar. */
export class ExpressionInvalid extends TaggedFailure("ExpressionInvalid")<{
  readonly detail: string
}> {}

type Token = { readonly kind: "number"; readonly value: number } | { readonly kind: "name"; readonly value: string } | {
  readonly kind: "symbol"
  readonly value: string
}

const tokenize = (text: string): ReadonlyArray<Token> | ExpressionInvalid => {
  const tokens: Array<Token> = []
  const pattern = /\s*(?:(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|([-+*/()]))/y
  let at = 0
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break
    pattern.lastIndex = at
    const match = pattern.exec(text)
    if (match === null) return new ExpressionInvalid({ detail: `unexpected "${text.slice(at).trim()[0]}" at position ${at + 1}` })
    at = pattern.lastIndex
    if (match[1] !== undefined) tokens.push({ kind: "number", value: Number(match[1]) })
    else if (match[2] !== undefined) tokens.push({ kind: "name", value: match[2] })
    else tokens.push({ kind: "symbol", value: match[3]! })
  }
  return tokens
}

/** Parses an expression (at most 64 levels deep). */
export const parse = (text: string): Expression | ExpressionInvalid => {
  const tokens = tokenize(text)
  if (tokens instanceof ExpressionInvalid) return tokens
  let at = 0
  const fail = (detail: string): never => {
    throw new ExpressionInvalid({ detail })
  }
  const peek = () => tokens[at]
  const isSymbol = (value: string) => peek()?.kind === "symbol" && peek()!.value === value
  const binary = (next: (depth: number) => Expression, operators: ReadonlyArray<string>) => (depth: number): Expression => {
    let left = next(depth)
    while (operators.some(isSymbol)) {
      const operator = tokens[at++]!.value as "+" | "-" | "*" | "/"
      left = { _tag: "Binary", operator, left, right: next(depth) }
    }
    return left
  }
  const primary = (depth: number): Expression => {
    if (depth > 64) fail("the expression is nested too deeply")
    const token = tokens[at++]
    if (token === undefined) return fail("the expression ends too early")
    if (token.kind === "number") return { _tag: "Number", value: token.value }
    if (token.kind === "name") return { _tag: "Measure", name: token.value }
    if (token.value === "-") return { _tag: "Negate", operand: primary(depth + 1) }
    if (token.value === "(") {
      const inner = sum(depth + 1)
      if (!isSymbol(")")) fail("a parenthesis is not closed")
      at++
      return inner
    }
    return fail(`unexpected "${token.value}"`)
  }
  const product = binary(primary, ["*", "/"])
  const sum: (depth: number) => Expression = binary(product, ["+", "-"])
  try {
    if (tokens.length === 0) return new ExpressionInvalid({ detail: "the expression is empty" })
    const expression = sum(0)
    if (at < tokens.length) return new ExpressionInvalid({ detail: `unexpected "${tokens[at]!.value}"` })
    return expression
  } catch (error) {
    if (error instanceof ExpressionInvalid) return error
    throw error
  }
}

/** The measures an expression names. */
export const references = (expression: Expression): ReadonlyArray<string> => {
  switch (expression._tag) {
    case "Number":
      return []
    case "Measure":
      return [expression.name]
    case "Negate":
      return references(expression.operand)
    case "Binary":
      return [...references(expression.left), ...references(expression.right)]
  }
}
