/**
 * A `/v1` list read page by page (cursor "load more") for a screen: its
 * items so far, whether there are more, whether a page is on its way, and
 * the problem of the last page asked for. The screen re-renders at each
 * change.
 *
 * @since 0.1.0
 */
import { type ListPage, type Problem, problemIn } from "../client/ApiClient.ts"

/** A list read page by page. */
export class Pager<A> {
  items: ReadonlyArray<A> = []
  hasMore = false
  loading = false
  /** Whether the first page has arrived. */
  loaded = false
  problem: Problem | undefined = undefined
  private cursor: string | null = null
  private readonly page: (cursor: string | null) => Promise<ListPage<A>>
  private readonly changed: () => void

  /** A list read by `page` (`(cursor) => client.list(path, cursor)`, whose items it takes the type of); `changed` after each change. */
  constructor(page: (cursor: string | null) => Promise<ListPage<A>>, changed: () => void) {
    this.page = page
    this.changed = changed
  }

  /** The next page (the first at first). */
  async more(): Promise<void> {
    if (this.loading) return
    this.loading = true
    this.problem = undefined
    this.changed()
    try {
      const page = await this.page(this.cursor)
      this.items = [...this.items, ...page.data]
      this.cursor = page.page.next_cursor
      this.hasMore = page.page.has_more && page.page.next_cursor !== null
      this.loaded = true
    } catch (error) {
      this.problem = problemIn(error)
    } finally {
      this.loading = false
      this.changed()
    }
  }

  /** Puts a new item first (one just created). */
  prepend(item: A): void {
    this.items = [item, ...this.items]
    this.changed()
  }
}
