/**
 * Reconciling an error with the client of another service: its key names a transaction of that
 * other service, so any lookup here is of the wrong thing, and advice built from it (resend with
 * the same key) would name a key this service never saw. Refused before anything is sent.
 */

import { PaywireError, RequestValidationError } from '@paywire/core'
import { faults, startFaultServer } from '@paywire/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { billPayment, cardGateway, outcome, PACKAGES, remittance } from './support/packages.js'

type Server = Awaited<ReturnType<typeof startFaultServer>>

const reconcilers = {
  'card-gateway': (url: string) => cardGateway(url),
  remittance: (url: string) => remittance(url),
  'bill-payment': (url: string) => billPayment(url),
} as const

let failing: Server
let lookups: Server

beforeAll(async () => {
  // A 500 to a write that is not retry-safe: the outcome is unknown and the error carries its key.
  failing = await startFaultServer(faults.json(500, { error: 'internal' }))
  lookups = await startFaultServer(faults.json(200, {}))
})

afterAll(async () => {
  await failing.close()
  await lookups.close()
})

const pairs = PACKAGES.flatMap((raiser) =>
  PACKAGES.filter((other) => other.name !== raiser.name).map(
    (reconciler) => [raiser.name, reconciler.name, raiser, reconciler] as const,
  ),
)

describe('reconcile refuses an error raised by another service client', () => {
  it.each(pairs)('%s error given to %s reconcile: refused, nothing sent', async (_r, _c, raiser, reconciler) => {
    const pair = raiser.open(failing.url, {})
    const { error } = await outcome(pair.write())
    await pair.close()
    expect(error).toBeInstanceOf(PaywireError)
    expect((error as PaywireError).outcomeUnknown).toBe(true)
    const key = (error as PaywireError).reconciliation?.key

    const client = reconcilers[reconciler.name](lookups.url)
    const before = lookups.requests.length
    const refused = await outcome(client.reconcile(error as PaywireError))
    await client.close()

    expect(refused.error).toBeInstanceOf(RequestValidationError)
    const issue = (refused.error as RequestValidationError).issues[0]
    expect(issue?.path).toBe('subject')
    expect(issue?.message).toContain(`is keyed by ${key}`)
    expect(issue?.message).toContain('reconcile it with the client of the service that raised it')
    expect(lookups.requests.length).toBe(before)
  })
})
