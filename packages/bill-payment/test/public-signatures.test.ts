/**
 * What a merchant's editor shows and checks: each method's plain signature (path value or body in,
 * the row's result out) and the `schema` overload typing the result with the schema's output.
 * Type-level only (the typecheck runs these; nothing is sent).
 */

import { type ApiPromise, BillPayment, type Product } from '@paywire/bill-payment'
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'

describe('bill payment: plain public signatures', () => {
  it('a plain call resolves with the row result; a schema call with the schema output', () => {
    const bills = new BillPayment({ baseUrl: 'https://bills.example', clientId: 'id', clientSecret: 'secret' })
    const product = () => bills.catalog.get('EDSA-PREPAID')
    const typed = () => bills.catalog.get('EDSA-PREPAID', { schema: z.object({ id: z.string() }) })
    expectTypeOf(product).returns.toEqualTypeOf<ApiPromise<Product | undefined>>()
    expectTypeOf(typed).returns.toEqualTypeOf<ApiPromise<{ id: string }>>()
    // @ts-expect-error a path value is a string or a number
    const _object = () => bills.catalog.get({ id: 'EDSA-PREPAID' })
  })
})
