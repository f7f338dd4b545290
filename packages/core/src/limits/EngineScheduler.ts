/**
 * Shares the analytics engines between tenants (decision 0018): one tenant's
 * load never stalls another's.
 *
 * - **A process-wide cap.** At most `capacity` pieces of engine work
 *   (queries, exports' queries and files, AI answers' queries, imports) run
 *   at once in this process; the others wait for a turn.
 * - **A queue per tenant, first come first served.**
 * - **A fair share.** A freed slot goes to the waiting tenant that holds the
 *   fewest slots, ties taken in turn (round-robin, the tenant served least
 *   recently first): while others wait, no tenant gains a slot over one
 *   holding fewer. With nobody else waiting a tenant may use more
 *   (work-conserving), up to `perTenant`.
 * - **A reserve.** The last `reserved` free slots go only to a tenant that
 *   holds none, so a tenant arriving while another floods the engine
 *   starts at once instead of waiting for one of the flood's queries to end.
 * - **A deadline.** A wait longer than its deadline fails with
 *   `TurnExpired`; an interrupted wait leaves its queue; a slot is given
 *   back however its work ends (success, failure, interruption).
 *
 * This is the fair share *below* the per-workspace plan cap of decision 0009
 * (`OperationLimits.queryConcurrency`), which stays the API's 429. Pure: no
 * timer of its own (the deadline is the `Clock`'s), no Node.
 *
 * @since 0.1.0
 */
import { Context, Duration, Effect, Layer, type Scope } from "effect"
import { TaggedFailure } from "../platform/Errors.ts"

/** How the engines are shared. */
export interface Options {
  /** Engine work run at once in this process, every tenant together (at least 1). */
  readonly capacity: number
  /**
   * The most slots one tenant holds at once, even on an idle engine
   * (default: `capacity - reserved`).
   */
  readonly perTenant?: number | undefined
  /**
   * Free slots kept for tenants that hold none (default 1 when `capacity` is
   * at least 2, else 0).
   */
  readonly reserved?: number | undefined
}

/** The options with every default applied. */
export interface Settings {
  readonly capacity: number
  readonly perTenant: number
  readonly reserved: number
}

/** The default cap, when the embedding app or host gives none (the host derives its own from the CPUs). */
export const defaults: Options = { capacity: 4 }

/** The options completed and bounded: a capacity of at least 1, a reserve below it, a per-tenant cap within it. */
export const settingsOf = (options: Options): Settings => {
  const capacity = Math.max(1, Math.floor(options.capacity))
  const reserved = Math.min(capacity - 1, Math.max(0, Math.floor(options.reserved ?? (capacity >= 2 ? 1 : 0))))
  const perTenant = Math.min(capacity, Math.max(1, Math.floor(options.perTenant ?? capacity - reserved)))
  return { capacity, perTenant, reserved }
}

/** No turn on the engine came within the deadline. */
export class TurnExpired extends TaggedFailure("TurnExpired")<{
  readonly tenant: string
  readonly waitedMillis: number
}> {}

/** What the engine is doing: work running and waiting, in all and by tenant (tenants with neither left out). */
export interface Usage {
  readonly running: number
  readonly waiting: number
  readonly tenants: Readonly<Record<string, { readonly running: number; readonly waiting: number }>>
}

/** Shares the engines between tenants. */
export class EngineScheduler extends Context.Service<EngineScheduler, {
  readonly settings: Settings
  /**
   * Runs `work` in a turn of `tenant`'s: waits for it (at most `deadline`,
   * forever when absent), then holds its slot until `work` ends.
   */
  readonly withTurn: (
    tenant: string,
    deadline?: Duration.Input | undefined
  ) => <A, E, R>(work: Effect.Effect<A, E, R>) => Effect.Effect<A, E | TurnExpired, R>
  /** Waits for a turn of `tenant`'s (at most `deadline`) and holds it until the scope closes: for streamed work. */
  readonly turn: (tenant: string, deadline?: Duration.Input | undefined) => Effect.Effect<void, TurnExpired, Scope.Scope>
  readonly usage: Effect.Effect<Usage>
}>()("@analytics/core/EngineScheduler") {
  /** A scheduler with these options (`defaults` when none). */
  static readonly layer = (options: Options = defaults): Layer.Layer<EngineScheduler> => Layer.effect(EngineScheduler, make(options))
}

/** One wait for a turn. */
interface Waiter {
  state: "waiting" | "granted" | "done"
  readonly resume: () => void
}

/** A tenant's slots held and its queue. */
interface TenantState {
  readonly id: string
  running: number
  readonly queue: Array<Waiter>
  /** When it was last given a slot (a counter), for the round-robin between tenants. */
  served: number
}

/** A scheduler with these options. */
export const make = (options: Options = defaults): Effect.Effect<EngineScheduler["Service"]> =>
  Effect.sync(() => {
    const settings = settingsOf(options)
    const tenants = new Map<string, TenantState>()
    let running = 0
    let grants = 0

    const stateOf = (tenant: string) => {
      let state = tenants.get(tenant)
      if (state === undefined) {
        state = { id: tenant, running: 0, queue: [], served: 0 }
        tenants.set(tenant, state)
      }
      return state
    }
    /** Forgets a tenant with nothing running or waiting (its turn in the round-robin with it). */
    const tidy = (state: TenantState) => {
      if (state.running === 0 && state.queue.length === 0) tenants.delete(state.id)
    }
    const eligible = (state: TenantState) =>
      state.queue.length > 0 &&
      state.running < settings.perTenant &&
      (state.running === 0 || settings.capacity - running > settings.reserved)

    /** Gives free slots away: each to the eligible waiting tenant holding the fewest, ties to the one served least recently. */
    const dispatch = () => {
      while (running < settings.capacity) {
        let next: TenantState | undefined
        for (const state of tenants.values()) {
          if (!eligible(state)) continue
          if (next === undefined || state.running < next.running || (state.running === next.running && state.served < next.served)) next = state
        }
        if (next === undefined) return
        const waiter = next.queue.shift()!
        waiter.state = "granted"
        next.running++
        next.served = ++grants
        running++
        waiter.resume()
      }
    }

    const release = (state: TenantState) => {
      state.running--
      running--
      tidy(state)
      dispatch()
    }

    /** Waits for a slot of `state`'s; interrupted (a deadline, a client gone), it leaves the queue or gives back a slot granted meanwhile. */
    const wait = (state: TenantState) =>
      Effect.callback<void>((resume) => {
        const waiter: Waiter = { state: "waiting", resume: () => resume(Effect.void) }
        state.queue.push(waiter)
        dispatch()
        return Effect.sync(() => {
          if (waiter.state === "waiting") {
            state.queue.splice(state.queue.indexOf(waiter), 1)
            tidy(state)
            // The waiter may have blocked others of its tenant (FIFO) only; nothing else to hand out.
          } else if (waiter.state === "granted") {
            release(state)
          }
          waiter.state = "done"
        })
      })

    /** A slot of `tenant`'s, waited for at most `deadline`; its release, to run exactly once. */
    const acquire = (tenant: string, deadline: Duration.Input | undefined) =>
      Effect.suspend(() => {
        const state = stateOf(tenant)
        const waiting = wait(state)
        const bounded = deadline === undefined ? waiting : Effect.timeoutOrElse(waiting, {
          duration: deadline,
          orElse: () => Effect.fail(new TurnExpired({ tenant, waitedMillis: Duration.toMillis(deadline) }))
        })
        return Effect.as(bounded, state)
      })

    const withTurn = (tenant: string, deadline?: Duration.Input | undefined) => <A, E, R>(work: Effect.Effect<A, E, R>) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(restore(acquire(tenant, deadline)), (state) => Effect.ensuring(restore(work), Effect.sync(() => release(state))))
      )

    const turn = (tenant: string, deadline?: Duration.Input | undefined) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(restore(acquire(tenant, deadline)), (state) => Effect.addFinalizer(() => Effect.sync(() => release(state))))
      )

    const usage = Effect.sync((): Usage => {
      const byTenant: Record<string, { running: number; waiting: number }> = {}
      let waiting = 0
      for (const state of tenants.values()) {
        byTenant[state.id] = { running: state.running, waiting: state.queue.length }
        waiting += state.queue.length
      }
      return { running, waiting, tenants: byTenant }
    })

    return EngineScheduler.of({ settings, withTurn, turn, usage })
  })
