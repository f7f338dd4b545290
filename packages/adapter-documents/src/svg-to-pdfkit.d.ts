/** svg-to-pdfkit ships no types: the one function it exports. */
declare module "svg-to-pdfkit" {
  const SVGtoPDF: (
    doc: PDFKit.PDFDocument,
    svg: string,
    x: number,
    y: number,
    options?: { readonly width?: number; readonly height?: number; readonly preserveAspectRatio?: string; readonly assumePt?: boolean }
  ) => void
  export default SVGtoPDF
}
