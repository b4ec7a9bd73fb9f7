/**
 * What a merchant's editor shows and checks: each method's plain signature (params in, the row's
 * result out), the `schema` overload typing the result with the schema's output, and an unknown
 * params key refused at compile time. Type-level only (the typecheck runs these; nothing is sent).
 */

import { type ApiPromise, CardGateway, type CheckoutStatusResult, type S2sActionResult } from '@paywire/card-gateway'
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'

const Receipt = z.object({ receipt: z.string() })

describe('card gateway: plain public signatures', () => {
  it('a plain call resolves with the row result; a schema call with the schema output', () => {
    const gw = new CardGateway({
      checkoutUrl: 'https://c.example',
      s2sUrl: 'https://s.example',
      merchantKey: 'm',
      clientKey: 'c',
      password: 'p',
    })
    const plain = () => gw.s2s.capture({ trans_id: 't', amount: '5.00' })
    const typed = () => gw.s2s.capture({ trans_id: 't' }, { schema: Receipt })
    const status = () => gw.checkout.status({ order_id: 'o' })
    expectTypeOf(plain).returns.toEqualTypeOf<ApiPromise<S2sActionResult>>()
    expectTypeOf(typed).returns.toEqualTypeOf<ApiPromise<{ receipt: string }>>()
    expectTypeOf(status).returns.toEqualTypeOf<ApiPromise<CheckoutStatusResult>>()
    // @ts-expect-error an unknown params key is refused (a typo of `amount`)
    const _typo = () => gw.s2s.capture({ trans_id: 't', amont: '5.00' })
    // @ts-expect-error Checkout status takes exactly one of payment_id and order_id
    const _both = () => gw.checkout.status({ payment_id: 'p', order_id: 'o' })
  })
})
