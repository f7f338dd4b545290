/**
 * The blob store contract on the stores of this package and core: memory,
 * and a directory of the real filesystem (removed after the run).
 */
import { BlobStore } from "@analytics/core"
import { blobStoreContract } from "@analytics/core/testing"
import { Effect, Layer } from "effect"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import * as FileBlobStore from "@analytics/adapter-http/FileBlobStore"

blobStoreContract("memory", BlobStore.BlobStore.layerMemory)

blobStoreContract(
  "filesystem",
  Layer.unwrap(Effect.map(
    Effect.acquireRelease(
      Effect.promise(() => Fs.mkdtemp(Path.join(Os.tmpdir(), "analytics-blobs-"))),
      (directory) => Effect.promise(() => Fs.rm(directory, { recursive: true, force: true }))
    ),
    FileBlobStore.layer
  ))
)
