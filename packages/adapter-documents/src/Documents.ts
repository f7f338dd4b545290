/**
 * The document renderers this package provides, as one layer.
 *
 * @since 0.1.0
 */
import { DocumentRenderers } from "@analytics/core"
import { Layer } from "effect"
import * as Pdf from "./Pdf.ts"
import * as Png from "./Png.ts"
import * as Pptx from "./Pptx.ts"
import * as Xlsx from "./Xlsx.ts"

/** PDF documents, PNG images of a visual, Excel workbooks and PowerPoint decks. */
export const layer = Layer.succeed(DocumentRenderers.DocumentRenderers, { pdf: Pdf.render, png: Png.render, pptx: Pptx.render, xlsx: Xlsx.render })
