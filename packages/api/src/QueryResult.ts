/**
 * The answer to a semantic query (a dataset's, a visual's, a tile's) and the
 * problems running one may answer.
 *
 * @since 0.1.0
 */
import { DateRange, SemanticModel } from "@analytics/core"
import { Schema } from "effect"
import * as Problems from "./Problems.ts"

/** What running a semantic query may answer besides its result (a dataset's, a visual's, a tile's, an alert's check). */
export const queryProblems = [
  Problems.Forbidden,
  Problems.NotFound,
  Problems.QueryInvalid,
  Problems.NotLoaded,
  Problems.EngineUnavailable,
  Problems.ModelInvalid,
  Problems.QueryTimedOut,
  Problems.QueryConcurrency,
  Problems.ServiceUnavailable
] as const

/** A value of a result row. */
const CellJson = Schema.NullOr(Schema.Union([Schema.String, Schema.Number, Schema.Boolean]))

/** The answer to a semantic query. */
export const QueryResultJson = Schema.Struct({
  columns: Schema.Array(Schema.Struct({
    name: Schema.String,
    member: Schema.String,
    kind: Schema.Literals(["dimension", "time_dimension", "measure"]),
    type: SemanticModel.DimensionType,
    granularity: Schema.optionalKey(Schema.Literals(DateRange.granularities)),
    format: Schema.optionalKey(SemanticModel.MeasureFormat.annotate({ description: "A measure's display format, as its model declares it" })),
    title: Schema.optionalKey(Schema.String.annotate({ description: "What a person reads for the column: the member's title in the model, else its name in words" }))
  })),
  data: Schema.Array(Schema.Record(Schema.String, CellJson)).annotate({
    description: "One object per row, keyed by column name; times as \"YYYY-MM-DD HH:MM:SS\" UTC"
  }),
  row_count: Schema.Number
})
