/** svg-to-pdfkit ships no types: the one function it exports. */
declare module "svg-to-pdfkit" {
  const SVGtoPDF: (
    doc: PDFKit.PDFDocument,
    svg: string,
    x: number,
    y: number,
    options?: {
      readonly width?: number
      readonly height?: number
      readonly preserveAspectRatio?: string
      readonly assumePt?: boolean
      /** The registered font to write an SVG text's family, weight and style in. */
      readonly fontCallback?: (family: string, bold: boolean, italic: boolean, options: Record<string, unknown>) => string
    }
  ) => void
  export default SVGtoPDF
}
