/**
 * The export job's state machine: claimed, progressing, succeeding;
 * transient failures queue it again after a wait until the attempts run
 * out; permanent failures and cancels are final; final jobs change no more.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ExportJob from "../src/exports/ExportJob.ts"
import type { TenantId } from "../src/tenancy/Tenant.ts"

const at = (seconds: number) => new Date(1_830_000_000_000 + seconds * 1000)

const queued: ExportJob.ExportJob = {
  job_id: "0190c0de-0000-7000-8000-000000000001" as ExportJob.JobId,
  tenant_id: "0190c0de-0000-7000-8000-000000000002" as TenantId,
  workspace_id: "w",
  report_id: "r",
  request: { format: "pdf" },
  requested_by: { type: "user", id: "u" },
  security: { roles: [], attributes: {} },
  watermark: null,
  delivery: null,
  status: "queued",
  percent_complete: 0,
  attempts: 0,
  failure: null,
  result: null,
  run_after: at(0),
  created_at: at(0),
  started_at: null,
  finished_at: null,
  updated_at: at(0)
}

const result = { key: "k", filename: "report.pdf", contentType: "application/pdf", bytes: 10, warnings: [] }

describe("ExportJob", () => {
  it("runs, progresses (never backwards, never to 100 before it succeeds) and succeeds", () => {
    const running = ExportJob.next(queued, { _tag: "Claimed", at: at(1) })!
    assert.deepInclude(running, { status: "running", attempts: 1, started_at: at(1) })
    const half = ExportJob.next(running, { _tag: "Progressed", percent: 50.7, at: at(2) })!
    assert.strictEqual(half.percent_complete, 50)
    assert.strictEqual(ExportJob.next(half, { _tag: "Progressed", percent: 20, at: at(3) })!.percent_complete, 50)
    assert.strictEqual(ExportJob.next(half, { _tag: "Progressed", percent: 100, at: at(3) })!.percent_complete, 99)
    const done = ExportJob.next(half, { _tag: "Succeeded", result, at: at(4) })!
    assert.deepInclude(done, { status: "succeeded", percent_complete: 100, finished_at: at(4), result })
    assert.isTrue(ExportJob.isFinal(done.status))
    for (const event of [{ _tag: "Claimed", at: at(5) }, { _tag: "Canceled", at: at(5) }] as const) assert.isUndefined(ExportJob.next(done, event))
    assert.isUndefined(ExportJob.next(queued, { _tag: "Succeeded", result, at: at(1) }), "only a running job succeeds")
  })

  it("a transient failure queues the job again after a wait, until its attempts run out; a permanent one is final", () => {
    const transient = { kind: "transient", detail: "the engine is busy" } as const
    let job = queued
    const waits: Array<number> = []
    for (let attempt = 1; attempt <= ExportJob.maxAttempts; attempt++) {
      job = ExportJob.next(job, { _tag: "Claimed", at: at(attempt * 100) })!
      job = ExportJob.next(job, { _tag: "Failed", failure: transient, at: at(attempt * 100 + 1) })!
      if (job.status === "queued") waits.push((job.run_after.getTime() - at(attempt * 100 + 1).getTime()) / 1000)
    }
    assert.deepStrictEqual(waits, [10, 60])
    assert.deepInclude(job, { status: "failed", attempts: 3, failure: transient })
    const permanent = { kind: "permanent", detail: "no page named Q5" } as const
    const failed = ExportJob.next(ExportJob.next(queued, { _tag: "Claimed", at: at(1) })!, { _tag: "Failed", failure: permanent, at: at(2) })!
    assert.deepInclude(failed, { status: "failed", attempts: 1, failure: permanent, finished_at: at(2) })
    assert.strictEqual(ExportJob.next(queued, { _tag: "Canceled", at: at(1) })!.status, "canceled")
  })
})
