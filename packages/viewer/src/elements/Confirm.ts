/**
 * A confirmation asked in a modal `<dialog>` before something that cannot
 * be undone (revoking access, deleting a webhook): a title, what happens,
 * and two buttons, the safe one focused first. Escape answers no; focus
 * goes back to where it was after.
 *
 * @since 0.1.0
 */

/** What the confirmation says. */
export interface ConfirmWords {
  readonly title: string
  readonly text: string
  /** The button that goes ahead (styled as dangerous). */
  readonly yes: string
  /** The safe choice. */
  readonly no: string
}

/** Asks, in a modal `<dialog>` placed in `root`; true when confirmed. */
export const confirmDialog = (root: Node & ParentNode, words: ConfirmWords): Promise<boolean> =>
  new Promise((resolve) => {
    const opener = deepActive()
    const dialog = document.createElement("dialog")
    dialog.className = "analytics-confirm"
    dialog.setAttribute("aria-labelledby", "analytics-confirm-title")
    dialog.setAttribute("aria-describedby", "analytics-confirm-text")
    const title = document.createElement("h2")
    title.id = "analytics-confirm-title"
    title.textContent = words.title
    const text = document.createElement("p")
    text.id = "analytics-confirm-text"
    text.textContent = words.text
    const row = document.createElement("div")
    row.className = "row"
    const yes = document.createElement("button")
    yes.type = "button"
    yes.className = "danger"
    yes.textContent = words.yes
    const no = document.createElement("button")
    no.type = "button"
    no.className = "secondary"
    no.textContent = words.no
    row.append(yes, no)
    dialog.append(title, text, row)
    let answer = false
    yes.addEventListener("click", () => {
      answer = true
      dialog.close()
    })
    no.addEventListener("click", () => dialog.close())
    dialog.addEventListener("close", () => {
      dialog.remove()
      if (opener?.isConnected === true) opener.focus()
      resolve(answer)
    })
    root.append(dialog)
    dialog.showModal()
    no.focus()
  })

/** The element that has focus, looking into shadow roots. */
export const deepActive = (): HTMLElement | null => {
  let active = document.activeElement
  while (active?.shadowRoot?.activeElement != null) active = active.shadowRoot.activeElement
  return active instanceof HTMLElement ? active : null
}
