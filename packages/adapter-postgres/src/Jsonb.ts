/**
 * jsonb values as they come back: parsed by `@effect/sql-pg` and PGlite
 * alike, but a string where a driver leaves the text.
 *
 * @since 0.1.0
 */

/** A jsonb value, parsed when it arrived as text. */
export const parsed = <A>(value: unknown): A => (typeof value === "string" ? JSON.parse(value) : value) as A
