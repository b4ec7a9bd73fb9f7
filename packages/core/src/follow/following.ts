/**
 * What each service client builds its `follow()` from: its lookup read into an `Observation`, which
 * of its calls start or move a payment, and its journal's reconciliation. One way for every service:
 * the card gateway's payments, remittance transfers and bill transactions follow alike.
 */

import type { IntentReconciled } from '../journal/reconcile.js'
import type { OperationClient, SettledCall } from '../operations/operation-client.js'
import type { Follower } from './follower.js'
import { type CallEffect, Followers } from './followers.js'
import type { FollowedRef, FollowOptions, FollowSpec, FollowUpdate, Observation } from './types.js'

/** A service's follow setup. */
export interface FollowingSetup<Record> {
  readonly engine: OperationClient<unknown>
  /** The service's package name (`remittance`). */
  readonly service: string
  /** The follower's name in messages (`transactions.follow`). */
  readonly operation: string
  readonly lookup: (followed: FollowedRef) => Promise<Observation<Record>>
  /** The payment a settled call started or moved (its `data` is the answer, or a reconciled record). */
  readonly effectOf: (call: SettledCall) => CallEffect | undefined
  /**
   * Reconciles the client's open intents, each lookup after `take()`, and closes those settled;
   * `undefined` when the client has no journal.
   */
  readonly reconcileJournal: ((take: () => Promise<void>) => Promise<IntentReconciled[]>) | undefined
}

/** A service client's followers and the `follow()` it offers. */
export class Following<Record> {
  readonly #setup: FollowingSetup<Record>
  /** Told of every verified callback (the card gateway's handler). */
  readonly followers: Followers

  constructor(setup: FollowingSetup<Record>) {
    this.#setup = setup
    this.followers = new Followers(setup.engine, setup.effectOf)
  }

  /**
   * A follower of this client's payments with `options`; `own` holds what the service's own options
   * set (its authorisation rule, a lookup read with them).
   */
  follow(
    options: FollowOptions<FollowUpdate<Record>>,
    own: Pick<FollowSpec<Record>, 'authorization'> & { readonly lookup?: FollowSpec<Record>['lookup'] } = {},
  ): Follower<Record> {
    const { service, operation, effectOf, reconcileJournal } = this.#setup
    const lookup = own.lookup ?? this.#setup.lookup
    const authorization = own.authorization
    const journal =
      reconcileJournal &&
      (async (take: () => Promise<void>): Promise<FollowedRef[]> => {
        const settled = await reconcileJournal(take)
        return settled.flatMap(({ intent, result }) => {
          if (result.outcome !== 'applied') return []
          const call = {
            operation: intent.operation,
            params: intent.params,
            path: {},
            idempotencyKey: intent.idempotencyKey,
            data: result.state,
            error: undefined,
          }
          const found = effectOf(call)
          return found?.effect === 'started' ? [found.followed] : []
        })
      })
    return this.followers.make(
      { service, operation, lookup, ...(authorization ? { authorization } : {}), ...(journal ? { journal } : {}) },
      options,
    )
  }
}
