/**
 * `confirm(root, words)`: a modal `<dialog>` asking whether to go on with
 * something that cannot be undone (deleting a schedule); true when
 * confirmed. Escape or the safe choice answers false; focus goes to the
 * safe choice first, and back to where it was after.
 *
 * @since 0.1.0
 */

/** The words of a confirmation. */
export interface ConfirmWords {
  readonly title: string
  readonly text: string
  /** The button that goes on (a danger button). */
  readonly yes: string
  /** The safe choice. */
  readonly no: string
}

/** Asks, in a dialog placed in `root`. */
export const confirm = (root: Node & ParentNode, words: ConfirmWords): Promise<boolean> =>
  new Promise((resolve) => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
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
