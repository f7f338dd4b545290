/**
 * `PUT /v1/datasets/{id}/data`: an upload dataset's rows, as a CSV
 * (`text/csv`) or Parquet (`application/vnd.apache.parquet`) body, streamed
 * to a temporary file (never held in memory) up to a size limit, then
 * checked (a CSV file strictly, `CsvCheck`), imported by the engine,
 * replacing the previous rows atomically. Served
 * beside the HttpApi contract because its body is a file, not JSON; the
 * edge (rate limits, problem answers) is the same, its body cap excepted.
 *
 * `?types={"zip":"string"}` reads columns as a given type instead of the
 * inferred one (codes with leading zeros, for instance). `?model=suggested`
 * replaces the model with the one suggested from the file's columns,
 * keeping its row-level security policies: the way out of a model that no
 * longer fits the file (decision 0013, "Recovering from a file that does
 * not fit"). Its OpenAPI entry is `@analytics/api`'s `Uploads`.
 *
 * @since 0.1.0
 */
import { Alerts, type AuditLog, Datasets, Policy, SemanticModel } from "@analytics/core"
import { Effect, Layer, Schema, Stream } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { problemMembers } from "../edge/DomainProblems.ts"
import { problemResponse } from "../edge/LastLineProblems.ts"
import { ResolvedCaller } from "../edge/ResolvedCaller.ts"
import { pathOf } from "../edge/Url.ts"
import { datasetJson } from "../handlers/Datasets.ts"
import * as CsvCheck from "./CsvCheck.ts"

/** Where uploads go. */
export const path = "/v1/datasets/:id/data"

/** The upload route, as `[method, path]` (the edge's 404/405 answers know it). */
export const routes: ReadonlyArray<readonly [string, string]> = [["PUT", path]]

/** The largest file accepted by default: 1 GiB. */
export const defaultMaxBytes = 1024 ** 3

const uploadPath = /\/v1\/datasets\/[^/]+\/data$/

/** Whether a request is an upload (which the edge's 1 MiB body cap does not apply to: this route has its own). */
export const isUpload = (method: string, url: string): boolean => method === "PUT" && uploadPath.test(pathOf(url))

const formats: Record<string, "csv" | "parquet"> = {
  "text/csv": "csv",
  "application/csv": "csv",
  "application/vnd.apache.parquet": "parquet",
  "application/x-parquet": "parquet"
}

/** Where uploads wait by default, under the OS's temporary directory. */
export const defaultDirectory = Path.join(Os.tmpdir(), "analytics-uploads")

/** An upload's own directory's name: this host's and process's, so a sweep knows whose it is. */
const ownPrefix = () => `upload-${Os.hostname()}-${process.pid}-`
const uploadName = /^upload-(.+)-(\d+)-[^-]+$/

/** Whether process `pid` runs on this host (one of another user counts). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Makes `directory` (only its owner may enter it) and removes what uploads
 * of dead processes of this host left there: a process killed mid-upload
 * (`kill -9`) runs no finalizer, and its file holds a tenant's rows in
 * plain text. Uploads of live processes, this one's included (several
 * services may share a directory), are left alone. Returns what it removed.
 */
export const sweep = async (directory: string): Promise<ReadonlyArray<string>> => {
  await Fs.mkdir(directory, { recursive: true, mode: 0o700 })
  const removed: Array<string> = []
  for (const name of await Fs.readdir(directory)) {
    const match = uploadName.exec(name)
    if (match === null || match[1] !== Os.hostname()) continue
    const pid = Number(match[2])
    if (pid === process.pid || alive(pid)) continue
    await Fs.rm(Path.join(directory, name), { recursive: true, force: true })
    removed.push(name)
  }
  return removed
}

const ColumnTypes = Schema.fromJsonString(Schema.Record(Schema.String, SemanticModel.DimensionType))

class Refused {
  readonly response: HttpServerResponse.HttpServerResponse
  constructor(response: HttpServerResponse.HttpServerResponse) {
    this.response = response
  }
}
const refuse = (code: Parameters<typeof problemResponse>[0], detail: string | undefined, extensions?: Record<string, unknown>) =>
  Effect.fail(new Refused(problemResponse(code, detail, undefined, extensions)))

/** What `?model=` may say: keep the model (the default), or replace it with the suggested one. */
const modelChoices: ReadonlyArray<Datasets.ModelChoice> = ["keep", "suggested"]

/**
 * The upload route over the dataset store and engines in context; files of
 * at most `maxBytes`, kept while they are checked and imported in a
 * directory of their own under `directory`, removed however the request
 * ends (a client that hangs up included), and swept at start (`sweep`).
 */
export const layer = (maxBytes: number = defaultMaxBytes, directory: string = defaultDirectory) =>
  Layer.unwrap(Effect.gen(function*() {
    const services = yield* Effect.context<Alerts.CheckServices | AuditLog.AuditStore>()
    const swept = yield* Effect.promise(() => sweep(directory))
    if (swept.length > 0) yield* Effect.logWarning("Removed uploads left by a process that died mid-upload", { directory, count: swept.length })
    return HttpRouter.add("PUT", path, Effect.gen(function*() {
      const resolved = yield* Effect.serviceOption(ResolvedCaller)
      if (resolved._tag === "None") return yield* refuse("auth/unauthenticated", "Send Authorization: Bearer <token>, or sign in to the console")
      const member = yield* Effect.mapError(
        Policy.authorize(resolved.value.caller.principal, "datasets.upload"),
        (refused) => new Refused(problemResponse(refused.code, refused.detail))
      )
      if (resolved.value.caller.tenant === undefined) return yield* refuse("auth/unauthenticated", "Send Authorization: Bearer <token>, or sign in to the console")
      const request = yield* HttpServerRequest.HttpServerRequest
      const contentType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
      const format = formats[contentType]
      if (format === undefined) {
        return yield* refuse("request/unsupported-media-type", "Send the rows as text/csv or application/vnd.apache.parquet")
      }
      const length = request.headers["content-length"]
      if (length !== undefined && Number(length) > maxBytes) {
        return yield* refuse("dataset/upload-too-large", `The file exceeds ${maxBytes} bytes`)
      }
      const params = yield* HttpServerRequest.ParsedSearchParams
      const types = typeof params.types === "string"
        ? yield* Schema.decodeUnknownEffect(ColumnTypes)(params.types).pipe(
          Effect.catch(() => refuse("request/invalid", "types: expected a JSON object of column name to string, number, boolean or time"))
        )
        : undefined
      const model = params.model === undefined ? "keep" : modelChoices.find((c) => c === params.model)
      if (model === undefined) return yield* refuse("request/invalid", "model: expected keep or suggested", { errors: [{ path: ["query", "model"], message: "Expected \"keep\" or \"suggested\"" }] })
      const dir = yield* Effect.acquireRelease(
        Effect.promise(() => Fs.mkdtemp(Path.join(directory, ownPrefix()))),
        (d) => Effect.promise(() => Fs.rm(d, { recursive: true, force: true }))
      )
      const file = Path.join(dir, `rows.${format}`)
      const handle = yield* Effect.acquireRelease(Effect.promise(() => Fs.open(file, "w")), (h) => Effect.promise(() => h.close()))
      let written = 0
      yield* Stream.runForEach(request.stream, (chunk) => {
        written += chunk.byteLength
        if (written > maxBytes) return refuse("dataset/upload-too-large", `The file exceeds ${maxBytes} bytes`)
        return Effect.promise(() => handle.write(chunk))
      }).pipe(Effect.catchTag("HttpServerError", () => refuse("request/invalid", "The upload was cut short")))
      if (written === 0) return yield* refuse("request/invalid", "The file is empty")
      yield* Effect.promise(() => handle.sync())
      // Read strictly before any engine reads it: a refusal names its line and changes nothing.
      const checked = format === "csv" ? yield* Effect.promise(() => CsvCheck.check(file)) : undefined
      if (checked !== undefined && "line" in checked) return yield* refuse("dataset/source-invalid", CsvCheck.describe(checked), { errors: [CsvCheck.issue(checked)] })
      const id = (yield* HttpRouter.params).id ?? ""
      const dataset = yield* Datasets.load(member.tenantId, id, { path: file, format, types, bytes: written, delimiter: checked?.delimiter }, { trigger: "upload", requested_by: { type: "user", id: member.userId } }, model).pipe(
        // The alerts watching the dataset are checked against its new rows.
        Effect.tap((loaded) => Alerts.afterRefresh(loaded.tenant_id, loaded.dataset_id)),
        Effect.provideContext(services),
        // With the problem's extension members: a model that does not fit the file lists every mismatch and the file's columns.
        Effect.catch((error) => {
          const { detail, ...extensions } = problemMembers(error)
          return refuse(error.code, detail, extensions)
        })
      )
      return HttpServerResponse.jsonUnsafe(datasetJson(dataset))
    }).pipe(
      Effect.scoped,
      Effect.catchIf((e): e is Refused => e instanceof Refused, (refused) => Effect.succeed(refused.response))
    ))
  }))
