/**
 * `GET /embed.js`: the small script an embedding page includes to show an
 * embed and keep it alive (decision 0027, docs/guides/embedding.md):
 *
 *     Analytics.embed(element, { url, fetchToken, title?, height?,
 *       onReady?, onRefreshed?, onExpired?, onPageChange?, onFilterChange?, onMarkClick?, onError? })
 *
 * puts an iframe of `url` (the service's `…/embed`) with the token
 * `fetchToken()` resolves to in `element`; when the embed posts
 * `analytics:token-expiring` it calls `fetchToken()` again and posts the
 * answer back (`analytics:token`), to that iframe only and to the
 * service's origin only. It takes messages from that iframe and that
 * origin only, and tells each as its callback and as an `analytics-<type>`
 * DOM event on `element`. Returns `{ iframe, destroy() }`.
 *
 * Plain script, no module and no dependency, so any page can include it;
 * served as it is written (no build), revalidated at each load (ETag).
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"

/** Where the script is served, under the public base URL. */
export const path = "/embed.js"

/** Every route, as `[method, path]` (the edge's 404/405 answers know them). */
export const routes: ReadonlyArray<readonly [string, string]> = [["GET", path]]

/** The script. Kept to what every current browser runs without a build. */
export const source = `/* Analytics embed helper: docs/guides/embedding.md, "Keeping an embed alive". */
(function () {
  "use strict";
  var prefix = "analytics:";
  var callbacks = {
    "ready": "onReady",
    "refreshed": "onRefreshed",
    "expired": "onExpired",
    "page-change": "onPageChange",
    "filter-change": "onFilterChange",
    "mark-click": "onMarkClick",
    "error": "onError"
  };
  function embed(element, options) {
    if (!element || !options || !options.url || typeof options.fetchToken !== "function") {
      throw new TypeError("Analytics.embed(element, { url, fetchToken }): an element, the embed's URL and a function resolving to a fresh embed token");
    }
    var url = new URL(options.url, document.baseURI);
    var origin = url.origin;
    var stopped = false;
    var iframe = document.createElement("iframe");
    iframe.title = options.title || "Embedded report";
    iframe.setAttribute("referrerpolicy", "no-referrer");
    iframe.style.border = "0";
    iframe.style.width = "100%";
    iframe.style.height = typeof options.height === "number" ? options.height + "px" : (options.height || "600px");
    function emit(type, detail) {
      var callback = options[callbacks[type]];
      if (typeof callback === "function") callback(detail);
      element.dispatchEvent(new CustomEvent("analytics-" + type, { detail: detail }));
    }
    function fresh() {
      return Promise.resolve().then(function () { return options.fetchToken(); }).then(function (token) {
        if (typeof token !== "string" || token === "") throw new Error("fetchToken resolved to no token");
        return token;
      });
    }
    function failed(error) {
      emit("error", { message: String((error && error.message) || error) });
    }
    function onMessage(event) {
      if (stopped || event.source !== iframe.contentWindow || event.origin !== origin) return;
      var data = event.data;
      if (!data || typeof data.type !== "string" || data.type.indexOf(prefix) !== 0) return;
      var type = data.type.slice(prefix.length);
      if (type === "token-expiring") {
        fresh().then(function (token) {
          if (!stopped && iframe.contentWindow) iframe.contentWindow.postMessage({ type: prefix + "token", token: token }, origin);
        }, failed);
        return;
      }
      if (!(type in callbacks)) return;
      var detail = {};
      for (var key in data) if (key !== "type") detail[key] = data[key];
      emit(type, detail);
    }
    window.addEventListener("message", onMessage);
    element.appendChild(iframe);
    fresh().then(function (token) {
      if (stopped) return;
      var src = new URL(url.href);
      src.searchParams.set("token", token);
      iframe.src = src.href;
    }, failed);
    return {
      iframe: iframe,
      destroy: function () {
        stopped = true;
        window.removeEventListener("message", onMessage);
        iframe.remove();
      }
    };
  }
  window.Analytics = Object.assign(window.Analytics || {}, { embed: embed });
})();
`

const body = new TextEncoder().encode(source)

/** The script's validator: it changes only with the service's version. */
const etag = Effect.promise(() => crypto.subtle.digest("SHA-256", body)).pipe(
  Effect.map((digest) => `"${Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("").slice(0, 32)}"`)
)

/** `GET /embed.js`: any page may load it (a classic script needs no CORS); revalidated at each load. */
export const layer = Layer.unwrap(Effect.map(etag, (tag) =>
  HttpRouter.add(
    "GET",
    path,
    Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
      const headers = {
        "cache-control": "no-cache",
        etag: tag,
        "x-content-type-options": "nosniff",
        "cross-origin-resource-policy": "cross-origin"
      }
      if (request.headers["if-none-match"] === tag) return HttpServerResponse.empty({ status: 304, headers })
      return HttpServerResponse.uint8Array(body, { contentType: "text/javascript; charset=utf-8", headers })
    })
  )
))
