/**
 * The e-mail that carries a scheduled export to its recipient: the file
 * attached when it is small enough for mail, and its signed link (valid
 * an hour) either way.
 *
 * @since 0.1.0
 */
import type { Delivery, Result } from "./ExportJob.ts"
import type { Mail } from "../platform/Mailer.ts"

/** Files up to this size travel attached; larger ones only by their link (mail servers refuse big messages). */
export const maxAttachmentBytes = 10 * 1024 * 1024

/** The message for `delivery`, with the file's bytes when they are attached. */
export const compose = (
  delivery: Delivery,
  result: Result,
  link: { readonly url: string; readonly expires_at: Date },
  content: Uint8Array | undefined
): Mail => {
  const lines = [
    `Your scheduled export "${delivery.schedule_name}" is ready: ${result.filename}.`,
    content === undefined
      ? `It is too large to attach; download it before ${link.expires_at.toISOString()} at:`
      : `It is attached; until ${link.expires_at.toISOString()} it can also be downloaded at:`,
    link.url,
    ...(result.warnings.length === 0 ? [] : ["", "Notes:", ...result.warnings.map((w) => `- ${w}`)]),
    "",
    "It shows the data as you would see it in the report yourself."
  ]
  return {
    to: [delivery.email],
    subject: `${delivery.schedule_name}: ${result.filename}`,
    text: lines.join("\n"),
    ...(content === undefined ? {} : { attachments: [{ filename: result.filename, contentType: result.contentType, content }] })
  }
}
