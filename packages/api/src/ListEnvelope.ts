/**
 * The list envelope of decision 0003: every list answers a page of `data`
 * and where the next page starts.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The envelope of a list of `item`s. */
export const make = <S extends Schema.Top>(item: S) =>
  Schema.Struct({
    data: Schema.Array(item),
    page: Schema.Struct({
      limit: Schema.Int,
      next_cursor: Schema.NullOr(Schema.String),
      has_more: Schema.Boolean
    })
  })
