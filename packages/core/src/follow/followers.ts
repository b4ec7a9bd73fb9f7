/**
 * The followers of one service client: every payment the client starts is followed by each of them
 * before its caller hears the answer (and every payment an outcome-unknown call may have started),
 * a call that moves a followed payment makes it looked up at once, and a verified callback does the
 * same. Each service client keeps one and says which of its calls start or move a payment.
 */

import { PaywireError } from '../errors/errors.js'
import type { CallListener, OperationClient, SettledCall } from '../operations/operation-client.js'
import { Follower } from './follower.js'
import type { FollowedRef, FollowOptions, FollowSpec, FollowUpdate } from './types.js'

/** What a settled call did to a payment: started it (follow it), or moved it (look it up now). */
export interface CallEffect {
  readonly followed: FollowedRef
  readonly effect: 'started' | 'moved'
}

/** Whether a call's error leaves open that it acted (then the payment may exist, and is followed). */
function mayHaveActed(error: unknown): boolean {
  return error instanceof PaywireError && (error as { outcomeUnknown?: unknown }).outcomeUnknown === true
}

export class Followers {
  readonly #engine: OperationClient<unknown>
  readonly #effectOf: (call: SettledCall) => CallEffect | undefined
  readonly #live = new Set<Follower<never>>()
  #unlisten: (() => void) | undefined

  /** @internal `effectOf` names the payment a settled call started or moved, if any. */
  constructor(engine: OperationClient<unknown>, effectOf: (call: SettledCall) => CallEffect | undefined) {
    this.#engine = engine
    this.#effectOf = effectOf
  }

  /** A follower with `spec` and `options`, hearing this client's calls until it stops. */
  make<Record>(spec: FollowSpec<Record>, options: FollowOptions<FollowUpdate<Record>>): Follower<Record> {
    const follower: Follower<Record> = new Follower(
      { ...spec, detach: () => this.#detach(follower as unknown as Follower<never>) },
      options,
    )
    this.#live.add(follower as unknown as Follower<never>)
    this.#unlisten ??= this.#engine.listen(this.#hear)
    return follower
  }

  /** A verified callback of `followed`: each follower looks it up at once (following it from here if it did not). */
  async announce(followed: FollowedRef): Promise<void> {
    await Promise.all(
      [...this.#live].map((follower) => follower.announce(followed).catch((error: unknown) => follower.report(error))),
    )
  }

  readonly #hear: CallListener = async (call) => {
    if (call.error !== undefined && !mayHaveActed(call.error)) return
    const found = this.#effectOf(call)
    if (found === undefined) return
    await Promise.all(
      [...this.#live].map((follower) =>
        (found.effect === 'started'
          ? follower.follow(found.followed, 'client')
          : follower.announce(found.followed)
        ).then(
          () => undefined,
          // The payment is not followed yet: the journal (when the call wrote an intent) or a
          // callback still brings it in, and onError says why.
          (error: unknown) => follower.report(error),
        ),
      ),
    )
  }

  #detach(follower: Follower<never>): void {
    this.#live.delete(follower)
    if (this.#live.size === 0) {
      this.#unlisten?.()
      this.#unlisten = undefined
    }
  }
}
