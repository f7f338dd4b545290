/**
 * How a deployment's exported documents look: its primary colour (charts'
 * accent and palette are derived from it) and the locale numbers are
 * written in. A reference with defaults, so a deployment that configures
 * nothing exports in the default blue and en-US; the host provides its own.
 *
 * @since 0.1.0
 */
import { Context } from "effect"

/** A deployment's look of documents. */
export interface Branding {
  /** A `#rrggbb` colour; renderers fall back to the default one when it is not readable. */
  readonly primaryColor: string
  /** A BCP 47 locale (`en-US`, `de-DE`) numbers are written in. */
  readonly locale: string
}

/** The look of documents when a deployment configures none. */
export const defaults: Branding = { primaryColor: "#2563eb", locale: "en-US" }

/** The deployment's branding of documents: `defaults` unless a layer provides another. */
export const Branding = Context.Reference<Branding>("@analytics/core/Branding", { defaultValue: () => defaults })
