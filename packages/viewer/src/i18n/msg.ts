/**
 * `msg(key, params)`: the words for a key in the console's language, with
 * `{name}` parameters filled in. English is shipped; a key missing from a
 * translation falls back to English.
 *
 * @since 0.1.0
 */
import { en } from "./en.ts"

/** A key of the console's words. */
export type MessageKey = keyof typeof en

let messages: Readonly<Record<string, string>> = en

/** Uses `translation` (keys as `en`'s) from now on; missing keys stay English. */
export const useMessages = (translation: Readonly<Partial<Record<MessageKey, string>>>): void => {
  messages = { ...en, ...translation }
}

/** The words for `key`, each `{name}` replaced by `params.name`. */
export const msg = (key: MessageKey, params?: Readonly<Record<string, string | number>>): string => {
  const text = messages[key] ?? en[key]
  return params === undefined ? text : text.replace(/\{(\w+)\}/g, (whole, name: string) => name in params ? String(params[name]) : whole)
}
