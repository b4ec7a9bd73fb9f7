/**
 * No zod schema is built when the package is imported or a client is made (cold start): each row's
 * body schema is built on its first call, once per client. Counted through zod's own bookkeeping:
 * every schema adds the trait `$ZodType` to its `_zod.traits` set when it is constructed.
 */

import { afterEach, describe, expect, it } from 'vitest'
import * as z from 'zod'

const add = Set.prototype.add
let built = 0

function countSchemas(): void {
  built = 0
  Set.prototype.add = function (this: Set<unknown>, value: unknown) {
    if (value === '$ZodType') built++
    return add.call(this, value)
  }
}

afterEach(() => {
  Set.prototype.add = add
})

describe('schemas are built on first use, not at import', () => {
  it('importing the package and its testing kit and making a client build none; a call builds its own row once', async () => {
    countSchemas()
    z.string()
    // The count sees zod's constructions: if zod stops keeping traits this way, this test says so.
    expect(built).toBe(1)

    built = 0
    // This file imports nothing of the package statically: these are its first evaluation in this file.
    const { Remittance, BENEFICIARY_FIELDS } = await import('../src/index.js')
    await import('../src/testing/index.js')
    expect(built).toBe(0)
    const remit = new Remittance({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' })
    expect(built).toBe(0)

    // A refused body: the schema is built and used, nothing is sent.
    await expect(remit.transactions.mobileTransfer({ amountSLE: -1 })).rejects.toThrow('amountSLE')
    const first = built
    expect(first).toBeGreaterThan(0)
    await expect(remit.transactions.mobileTransfer({ amountSLE: -1 })).rejects.toThrow('amountSLE')
    expect(built).toBe(first)

    const { beneficiaryCreateSchema } = await import('../src/resources/beneficiaries.js')
    // The list of field names is the schema's, in the service's order (rule Resources 1).
    expect(Object.keys(beneficiaryCreateSchema().shape)).toEqual(BENEFICIARY_FIELDS)
    await remit.close()
  })
})
