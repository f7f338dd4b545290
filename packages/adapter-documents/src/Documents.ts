/**
 * The document renderers this package provides, as one layer.
 *
 * @since 0.1.0
 */
import { DocumentRenderers } from "@analytics/core"
import { Layer } from "effect"
import * as Xlsx from "./Xlsx.ts"

/** Excel workbooks (PDF, PNG and PowerPoint follow). */
export const layer = Layer.succeed(DocumentRenderers.DocumentRenderers, { xlsx: Xlsx.render })
