/**
 * A file sent with its progress: `fetch` cannot tell how much of a request
 * body has gone, `XMLHttpRequest`'s `upload.onprogress` can. Used for
 * `PUT /v1/datasets/{id}/data` (a route beside the contract: its body is
 * the file). Same cookies, `X-CSRF-Token` and problems as the API client.
 *
 * @since 0.1.0
 */
import { ApiProblem, networkProblem, problemOf } from "./ApiClient.ts"
import { currentSession } from "./Session.ts"

/** Sends `file` with `method` to `path` (relative to the page's base); `onProgress` hears the fraction sent (0 to 1). */
export const upload = <A>(
  method: string,
  path: string,
  file: Blob,
  contentType: string,
  onProgress: (fraction: number) => void,
  onUnauthorized?: () => void
): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open(method, new URL(path, document.baseURI))
    xhr.withCredentials = false
    xhr.setRequestHeader("content-type", contentType)
    xhr.setRequestHeader("accept", "application/json")
    const csrf = currentSession()?.csrf_token
    if (csrf !== undefined) xhr.setRequestHeader("x-csrf-token", csrf)
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total)
    }
    xhr.upload.onload = () => onProgress(1)
    xhr.onerror = () => reject(new ApiProblem(networkProblem()))
    xhr.onload = () => {
      let json: unknown
      try {
        json = xhr.responseText === "" ? undefined : JSON.parse(xhr.responseText)
      } catch {
        json = undefined
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(json as A)
      if (xhr.status === 401) onUnauthorized?.()
      reject(new ApiProblem(problemOf(xhr.status, json, xhr.getResponseHeader("retry-after"))))
    }
    xhr.send(file)
  })
