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

/**
 * A renderer for each document format of core's table (`ExportFormats`):
 * PDF documents, PNG images of a visual, Excel workbooks and PowerPoint
 * decks. Typed `Complete`, so a document format added to the table fails
 * to compile here until its renderer is.
 */
export const renderers: DocumentRenderers.Complete = { pdf: Pdf.render, png: Png.render, pptx: Pptx.render, xlsx: Xlsx.render }

/** All of this package's renderers, as the deployment's `DocumentRenderers`. */
export const layer = Layer.succeed(DocumentRenderers.DocumentRenderers, renderers)
