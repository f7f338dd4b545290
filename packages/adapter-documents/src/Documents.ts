/**
 * The document renderers this package provides, as one layer.
 *
 * @since 0.1.0
 */
import { DocumentRenderers } from "@analytics/core"
import { Layer } from "effect"
import * as Pdf from "./Pdf.ts"
import * as Xlsx from "./Xlsx.ts"

/** PDF documents and Excel workbooks (PNG and PowerPoint follow). */
export const layer = Layer.succeed(DocumentRenderers.DocumentRenderers, { pdf: Pdf.render, xlsx: Xlsx.render })
