/**
 * What a merchant's editor shows and checks: each method's plain signature (path value or params
 * in, the row's result out), the `schema` overload typing the result with the schema's output, and
 * an unknown params key refused at compile time. Type-level only (the typecheck runs these).
 */

import { type ApiPromise, type Beneficiary, Remittance, type TransactionStatus } from '@paywire/remittance'
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'

describe('remittance: plain public signatures', () => {
  it('a plain call resolves with the row result; a schema call with the schema output', () => {
    const remit = new Remittance({ baseUrl: 'https://remit.example', apiKey: 'k' })
    const status = () => remit.lookup.transactionStatus('REF-1')
    const found = () => remit.beneficiaries.getByPosId('POS-1')
    const typed = () => remit.lookup.transactionStatus('REF-1', { schema: z.object({ state: z.string() }) })
    expectTypeOf(status).returns.toEqualTypeOf<ApiPromise<TransactionStatus>>()
    expectTypeOf(found).returns.toEqualTypeOf<ApiPromise<readonly Beneficiary[] | undefined>>()
    expectTypeOf(typed).returns.toEqualTypeOf<ApiPromise<{ state: string }>>()
    // @ts-expect-error a path value is a string or a number
    const _object = () => remit.lookup.transactionStatus({ referenceNumber: 'REF-1' })
    // @ts-expect-error an unknown key of a strict body is refused
    const _typo = () => remit.lookup.rates({ amountSle: 10 }, {})
  })
})
