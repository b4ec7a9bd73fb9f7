/**
 * `reconcile()` options from the attacker's side: a `settleAfterMs` of NaN or below zero once made a
 * lookup that found nothing prove `not_applied` at once (the call could still be on its way, and the
 * docs read `not_applied` as "call it again": a second charge). Refused by name, before any lookup.
 */

import { type Intent, MemoryIntentStore } from '@paywire/core'
import { expect, it } from 'vitest'
import { CardGateway, RequestValidationError } from '../src/index.js'
import { setup } from './helpers.js'

const intent: Intent = {
  id: 'capture-1',
  service: 'card-gateway',
  operation: 's2s.capture',
  params: { trans_id: 'never-seen' },
  reconciliation: { key: 'trans_id', value: 'never-seen', lookup: 'gw.s2s.getTransStatus({ trans_id })' },
  idempotencyKey: undefined,
  createdAt: Date.now(),
}

it.each([
  [Number.NaN, 'NaN'],
  [-1, '-1'],
  [Number.NEGATIVE_INFINITY, '-Infinity'],
  [Number.POSITIVE_INFINITY, 'Infinity'],
])('settleAfterMs %s is refused by name, and nothing is looked up', async (settleAfterMs, shown) => {
  const ctx = await setup()
  const before = ctx.server.requests.length
  for (const run of [
    () => ctx.gw.reconcile(intent, { settleAfterMs }),
    () => new CardGateway({ ...ctx.clientOptions, journal: new MemoryIntentStore() }).reconcileAll({ settleAfterMs }),
  ]) {
    const refused = await run().catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(RequestValidationError)
    expect((refused as RequestValidationError).issues).toEqual([
      expect.objectContaining({ path: 'settleAfterMs', message: expect.stringContaining(`got ${shown}`) }),
    ])
  }
  expect(ctx.server.requests.length).toBe(before)
})

it('a lookup that finds nothing right after the call is still_unknown with the default settle delay, and not_applied once it passed', async () => {
  const ctx = await setup()
  expect((await ctx.gw.reconcile(intent)).outcome).toBe('still_unknown')
  // A hand-made intent records no account: adopted, as one journal of one account would.
  expect((await ctx.gw.reconcile(intent, { settleAfterMs: 0, adoptUnboundIntents: true })).outcome).toBe('not_applied')
})
