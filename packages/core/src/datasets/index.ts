/**
 * Datasets and the semantic layer: the model, queries, measure expressions,
 * date ranges, the SQL compiler and dialects, and the analytics engine port.
 *
 * @since 0.1.0
 */
export * as AnalyticsEngine from "./AnalyticsEngine.ts"
export * as Dataset from "./Dataset.ts"
export * as DatasetRefresh from "./DatasetRefresh.ts"
export * as DatasetStore from "./DatasetStore.ts"
export * as Datasets from "./Datasets.ts"
export * as DateRange from "./DateRange.ts"
export * as MeasureExpression from "./MeasureExpression.ts"
export * as ResultCache from "./ResultCache.ts"
export * as SampleSales from "./SampleSales.ts"
export * as SemanticModel from "./SemanticModel.ts"
export * as SemanticQuery from "./SemanticQuery.ts"
export * as SqlCompiler from "./SqlCompiler.ts"
export * as SqlDialect from "./SqlDialect.ts"
