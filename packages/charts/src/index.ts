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
export * as Chart from "./Chart.ts"
export * as Format from "./Format.ts"
export * as Theme from "./Theme.ts"
