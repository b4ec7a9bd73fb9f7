/**
 * The payment follower: every payment followed until its final state, whether or not a callback
 * ever arrives. Each payment is one record in a `ClaimStore` (`follow:v1:<ref>`), pending until its
 * next lookup is due; an instance takes it under a lease (so one instance looks at a time, and a
 * dead instance's payments are taken over), looks it up within this instance's lookup budget,
 * delivers a state that moved forward to `onUpdate`, and only then records the new state and the
 * next lookup in the same record. A verified callback wakes the record for a lookup at once: its
 * claim is confirmed by the lookup, never taken on its word. Updates therefore move forward only,
 * are confirmed, and each is delivered until `onUpdate` returns (again only when the instance dies
 * between the two: `context.attempt` then says so).
 */

import { nodeCrypto } from '../builtins.js'
import { PaywireError } from '../errors/errors.js'
import type { RunOutcome } from '../inbox/config.js'
import { MemoryClaimStore } from '../inbox/memory-store.js'
import { Inbox } from '../inbox/runner.js'
import type { ClaimStore, StoredEvent } from '../inbox/store.js'
import { checkStore, recordWithin, STORE_STEP_DEADLINE_MS, withDeadline } from '../inbox/store-calls.js'
import { authorizationWarning, checkRef, describe, nextDue } from './attention.js'
import { LookupBudget } from './budget.js'
import { type CheckedFollowOptions, checkFollowOptions } from './options.js'
import {
  decodeState,
  encodeState,
  FOLLOW_KEY_PREFIX,
  type FollowOrigin,
  type FollowState,
  followKey,
  sourceOf,
  startState,
} from './record.js'
import type {
  FailedFollow,
  FollowAttention,
  FollowContext,
  FollowedRef,
  FollowOptions,
  FollowSpec,
  FollowUpdate,
  Observation,
  TrackAnswer,
} from './types.js'

/** A run this much before its due time was woken (by a callback), not scheduled; covers clock skew between instances. */
const WOKEN_SLACK_MS = 5_000
/** How long a final payment's record is kept, so a late callback or `track()` of it is not followed again. */
const KEEP_FINAL_MS = 7 * 24 * 60 * 60 * 1000
/** The journal is swept at most this often per instance (on the interval, and on `tick()`). */
const JOURNAL_EVERY_MS = 60_000
/** A callback's wake of a payment being looked at right then is tried again this many times, this far apart. */
const WAKE_TRIES = 5
const WAKE_PAUSE_MS = 2_000
/** Final payments past their keep are pruned at most this often (PostgreSQL; Redis expires them itself). */
const PRUNE_EVERY_MS = 60 * 60 * 1000

/**
 * Follows payments of one service client to their final state (`gw.payments.follow()`,
 * `remit.transactions.follow()`, `bills.transactions.follow()`): one forward-only stream of
 * confirmed states to `onUpdate`, merged from callbacks, scheduled lookups and the journal, and
 * `onAttention` before an authorisation expires or when a payment is stuck.
 */
export class Follower<Record = unknown> {
  readonly #spec: FollowSpec<Record>
  readonly #options: FollowOptions<FollowUpdate<Record>>
  readonly #checked: CheckedFollowOptions
  readonly #store: ClaimStore
  readonly #inbox: Inbox
  readonly #budget: LookupBudget
  #journalAt = Number.NEGATIVE_INFINITY
  #prunedAt = Number.NEGATIVE_INFINITY
  #journal: Promise<void> | undefined
  #stopped = false
  readonly #timers = new Set<ReturnType<typeof setTimeout>>()

  /** @internal Made by a service client's `follow()`. */
  constructor(spec: FollowSpec<Record>, options: FollowOptions<FollowUpdate<Record>>) {
    this.#checked = checkFollowOptions(spec.operation, options as FollowOptions<unknown>)
    const store = options.store ?? new MemoryClaimStore({ clock: this.#checked.clock })
    checkStore(spec.operation, store)
    this.#spec = spec
    this.#options = options
    this.#store = store
    this.#budget = new LookupBudget(this.#checked.clock, this.#checked.lookupsPerSecond)
    const { concurrency, holdMs, maxAttempts, clock } = this.#checked
    this.#inbox = new Inbox({
      service: spec.service,
      operation: spec.operation,
      store,
      concurrency,
      holdMs,
      keepMs: KEEP_FINAL_MS,
      maxAttempts,
      backoff: { baseDelayMs: 1_000, maxDelayMs: 15 * 60 * 1000 },
      // The interval runs the journal's sweep too (`#tick`); the inbox's own is off.
      recoverEveryMs: 0,
      clock,
      owns: (key) => key.startsWith(FOLLOW_KEY_PREFIX),
      run: (event, attempt) => this.#run(event, attempt),
      report: (error) => this.#report(error),
    })
    if (this.#checked.tickEveryMs > 0) this.#schedule()
  }

  /**
   * Follows `ref` (a payment started elsewhere: another service, the portal, before an upgrade),
   * unless it already is. Its first lookup comes after the schedule's first wait.
   */
  track(ref: string, options: { api?: string } = {}): Promise<TrackAnswer> {
    return this.follow({ ref, api: options.api }, 'track')
  }

  /** @internal `track` for the client's own calls, the journal and callbacks, with where it came from. */
  async follow(followed: FollowedRef, origin: FollowOrigin, dueNow = false): Promise<TrackAnswer> {
    checkRef(this.#spec.operation, followed.ref)
    const now = this.#wall()
    const firstWait = dueNow ? 0 : (this.#checked.schedule[0] as number)
    const state = startState(followed, origin, now, firstWait)
    const key = followKey(followed.ref)
    const token = nodeCrypto().randomUUID()
    const answer = await recordWithin(
      { service: this.#spec.service, operation: this.#spec.operation, store: this.#store, clock: this.#checked.clock },
      { key, previousKeys: [], fields: encodeState(state), ref: followed.ref },
      token,
      this.#checked.holdMs,
    )
    if (answer === 'done') return 'final'
    if (answer !== 'taken') return 'already'
    // Recorded leased to us: handed back due after the first wait, its attempt given back. Not
    // awaited (a payment call waits for the record only): should the release be lost, the lease
    // ends and the first taker reschedules it.
    void withDeadline(
      this.#store.release(key, token, { retryInMs: firstWait, counted: false, error: undefined, dead: false }),
      STORE_STEP_DEADLINE_MS,
    ).catch((error: unknown) => this.#report(error))
    return 'followed'
  }

  /**
   * @internal A verified callback of `ref`: look it up now (the callback's claim is confirmed by the
   * lookup, never taken on its word). A payment not yet followed is followed from here.
   */
  async announce(followed: FollowedRef): Promise<void> {
    const answer = await this.follow(followed, 'callback', true)
    if (answer !== 'already') return
    const key = followKey(followed.ref)
    if (await withDeadline(this.#store.wake(key), STORE_STEP_DEADLINE_MS)) return
    // Being looked at right now on some instance (its lookup may predate the news): woken again
    // shortly, in the background. Best effort: the schedule looks again in any case.
    void this.#wakeLater(key)
  }

  async #wakeLater(key: string): Promise<void> {
    for (let attempt = 1; attempt < WAKE_TRIES && !this.#stopped; attempt++) {
      await this.#pause(WAKE_PAUSE_MS)
      try {
        if (await withDeadline(this.#store.wake(key), STORE_STEP_DEADLINE_MS)) return
      } catch (error) {
        this.#report(error)
        return
      }
    }
  }

  /**
   * Looks at every payment due now (and sweeps the journal when a minute has passed), up to
   * `concurrency` at once; resolves with how many were looked at, once they are done. For
   * serverless: call it from a scheduler with `tickEveryMs: 0`.
   */
  async tick(): Promise<number> {
    await this.#sweepJournal()
    const looked = await this.#inbox.recover()
    if (this.#checked.clock.now() - this.#prunedAt >= PRUNE_EVERY_MS) {
      this.#prunedAt = this.#checked.clock.now()
      await this.#inbox.prune().catch((error: unknown) => this.#report(error))
    }
    return looked
  }

  /** Stops the interval and waits for the payments being looked at. Following resumes on any instance still running. */
  async stop(): Promise<void> {
    if (!this.#stopped) this.#spec.detach?.()
    this.#stopped = true
    for (const timer of this.#timers) clearTimeout(timer)
    this.#timers.clear()
    await this.#journal
    await this.#inbox.close()
  }

  /** Payments set aside after `onUpdate` or `onAttention` failed `maxAttempts` times, oldest first. */
  async failed(limit = 100): Promise<FailedFollow[]> {
    const events = await this.#store.failedEvents(limit)
    return events
      .filter((event) => event.key.startsWith(FOLLOW_KEY_PREFIX))
      .map((event) => ({ ref: event.ref, attempts: event.attempts, lastError: event.lastError }))
  }

  /** Follows a payment set aside again, at once (attempts reset); `false` when it is not set aside. */
  retry(ref: string): Promise<boolean> {
    checkRef(this.#spec.operation, ref)
    return this.#store.retry(followKey(ref))
  }

  /** Stops following `ref` and forgets it (its record is erased); answers whether it was followed. */
  async forget(ref: string): Promise<boolean> {
    checkRef(this.#spec.operation, ref)
    return (await this.#store.forget(ref)) > 0
  }

  /** @internal A failure met on the follower's behalf (following a payment the client started). */
  report(error: unknown): void {
    this.#report(error)
  }

  async #run(event: StoredEvent, attempt: number): Promise<RunOutcome> {
    const state = decodeState(event.fields)
    if (state === undefined) {
      return {
        kind: 'later',
        counted: true,
        error: new PaywireError(`${this.#spec.operation}: the record of ${JSON.stringify(event.ref)} cannot be read`),
      }
    }
    if (state.final) return { kind: 'done' }
    const now = this.#wall()
    const woken = now + WOKEN_SLACK_MS < state.dueAt
    const { followForMs, stuckAfterMs } = this.#checked
    try {
      if (now - state.startedAt >= followForMs) {
        await this.#attention(state, 'stopped', attempt)
        return { kind: 'done' }
      }
      if (now - state.startedAt >= stuckAfterMs && !state.said.includes('stuck')) {
        await this.#attention(state, 'stuck', attempt)
        state.said.push('stuck')
      }
      const expiry = authorizationWarning(state, this.#spec.authorization)
      if (expiry !== undefined && now >= expiry.warnAt && !state.said.includes(expiry.tag)) {
        await this.#attention(state, 'authorization_expiring', attempt, new Date(expiry.expiresAt).toISOString())
        state.said.push(expiry.tag)
      }
    } catch (error) {
      return { kind: 'later', counted: true, error, fields: encodeState(state) }
    }
    if (woken || now >= state.lookupAt) {
      const failure = await this.#look(state, woken, now, attempt)
      if (failure !== undefined) return failure
    }
    if (state.final) return { kind: 'done' }
    const next = nextDue(state, this.#checked, this.#spec.authorization)
    state.dueAt = next
    return {
      kind: 'later',
      counted: false,
      error: undefined,
      inMs: Math.max(0, next - this.#wall()),
      fields: encodeState(state),
    }
  }

  /**
   * One lookup within the budget, the update it confirms delivered, and the next lookup scheduled;
   * answers the outcome when `onUpdate` threw (the state is then not advanced, so the same update is
   * delivered again).
   */
  async #look(state: FollowState, woken: boolean, now: number, attempt: number): Promise<RunOutcome | undefined> {
    const { schedule } = this.#checked
    const wait = schedule[Math.min(state.step, schedule.length - 1)] as number
    if (woken) state.lookupAt = Math.min(state.lookupAt, now + (schedule[0] as number))
    else {
      state.step++
      state.lookupAt = now + wait
    }
    await this.#budget.take()
    let seen: Observation<Record>
    try {
      seen = await this.#spec.lookup({ ref: state.ref, api: state.api })
    } catch (error) {
      // A lookup that failed shows nothing: the schedule looks again.
      this.#report(error)
      return undefined
    }
    if (seen.kind !== 'state' || seen.stage <= 0) return undefined
    const confirmedAt = this.#wall()
    if (seen.stage < state.stage || (seen.stage === state.stage && (state.final || !seen.final))) return undefined
    if (seen.final && seen.settleMs !== undefined) {
      // A final state that a later lookup can overturn: delivered once seen again after its settle time.
      const candidate = state.candidate
      if (candidate === undefined || candidate.state !== seen.state) {
        state.candidate = { state: seen.state, at: confirmedAt }
        state.lookupAt = Math.min(state.lookupAt, confirmedAt + seen.settleMs)
        return undefined
      }
      if (confirmedAt - candidate.at < seen.settleMs) {
        state.lookupAt = Math.min(state.lookupAt, candidate.at + seen.settleMs)
        return undefined
      }
    }
    const update: FollowUpdate<Record> = {
      ref: state.ref,
      state: seen.state,
      previous: state.state,
      final: seen.final,
      source: sourceOf(state, woken),
      confirmedAt: new Date(confirmedAt).toISOString(),
      record: seen.record,
    }
    try {
      await this.#options.onUpdate(update, { key: `${state.ref}:${seen.state}`, attempt })
    } catch (error) {
      // Not delivered: the next run (after the inbox's backoff) looks again and delivers what it shows.
      state.lookupAt = confirmedAt
      return { kind: 'later', counted: true, error, fields: encodeState(state) }
    }
    state.state = seen.state
    state.stage = seen.stage
    state.final = seen.final
    state.candidate = undefined
    if (this.#spec.authorization?.states.includes(seen.state)) state.authorizedAt ??= confirmedAt
    return undefined
  }

  async #attention(state: FollowState, kind: FollowAttention['kind'], attempt: number, expiresAt?: string) {
    const onAttention = this.#options.onAttention
    const attention: FollowAttention = {
      ref: state.ref,
      kind,
      state: state.state,
      since: new Date(state.startedAt).toISOString(),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    }
    const context: FollowContext = { key: `${state.ref}:attention:${kind}`, attempt }
    if (onAttention === undefined) {
      this.#report(new PaywireError(`${this.#spec.operation}: ${describe(attention)} (no onAttention was given)`))
      return
    }
    await onAttention.call(this.#options, attention, context)
  }

  /** The journal as a source: open intents settled by lookup; the payments they started, followed. */
  async #sweepJournal(): Promise<void> {
    const journal = this.#spec.journal
    if (journal === undefined) return
    const now = this.#checked.clock.now()
    if (this.#journal !== undefined || now - this.#journalAt < JOURNAL_EVERY_MS) return this.#journal
    this.#journalAt = now
    this.#journal = (async () => {
      try {
        const started = await journal.call(this.#spec, () => this.#budget.take())
        for (const followed of started) await this.follow(followed, 'journal', true)
      } catch (error) {
        this.#report(error)
      } finally {
        this.#journal = undefined
      }
    })()
    return this.#journal
  }

  #schedule(): void {
    if (this.#stopped) return
    const every = this.#checked.tickEveryMs
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer)
        void this.tick()
          .catch((error: unknown) => this.#report(error))
          .finally(() => this.#schedule())
      },
      Math.round(every * (0.5 + Math.random())),
    )
    timer.unref?.()
    this.#timers.add(timer)
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer)
        resolve()
      }, ms)
      timer.unref?.()
      this.#timers.add(timer)
    })
  }

  #wall(): number {
    return this.#checked.clock.date?.() ?? Date.now()
  }

  #report(error: unknown): void {
    try {
      if (this.#options.onError) this.#options.onError(error)
      else console.error(`paywire ${this.#spec.operation}:`, error instanceof Error ? error.message : error)
    } catch {
      // A reporter that throws must not stop following.
    }
  }
}
