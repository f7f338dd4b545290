/**
 * @analytics/charts: one chart renderer for the share page, embeds and every
 * export. A visual and its query's columns become a plan in the model's own
 * words (`Chart`), the formats every place shares (`Format`) and the colours
 * derived from the deployment's branding (`Theme`). Drawing SVG is the
 * entry point `@analytics/charts/svg`.
 *
 * It imports `@analytics/core` for types only, so a browser bundle of it
 * pulls in no `effect`.
 *
 * @since 0.1.0
 */
/** Plans of visuals and their Vega-Lite specs. */
export * as Chart from "./Chart.ts"
/** Number and time formats for Vega, text and Excel. */
export * as Format from "./Format.ts"
/** Chart colours from the deployment's primary colour. */
export * as Theme from "./Theme.ts"
