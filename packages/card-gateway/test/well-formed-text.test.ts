import { RequestValidationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { orderId, rejection, setup } from './helpers.js'

const urls = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }
const LONE = '\ud800'

function issuesOf(error: unknown) {
  expect(error).toBeInstanceOf(RequestValidationError)
  return (error as RequestValidationError).issues
}

describe('unpaired UTF-16 surrogates are refused before sending', () => {
  it('Checkout purchase: in order.description (nested), named by its path', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.checkout.purchase({
        order: { number: orderId(), amount: '1.00', currency: 'USD', description: `Mug ${LONE}` },
        ...urls,
      }),
    )
    expect(issuesOf(error)).toEqual([
      { path: 'order.description', message: expect.stringMatching(/unpaired UTF-16 surrogate/) },
    ])
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('Checkout purchase: in customer.name, an array element and a custom_data value and key', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.checkout.purchase({
        order: { number: orderId(), amount: '1.00', currency: 'USD', description: 'Mug' },
        ...urls,
        customer: { name: `Ada${LONE}` },
        methods: ['card', `x${'\udc00'}`],
        custom_data: { note: { deep: ['ok', LONE] }, [`k${LONE}`]: 'v' },
      }),
    )
    const paths = issuesOf(error).map((i) => i.path)
    expect(paths).toEqual(
      expect.arrayContaining(['customer.name', 'methods.1', 'custom_data.note.deep.1', 'custom_data']),
    )
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('Checkout credit: in order_description', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.checkout.credit({
        order_id: orderId(),
        order_amount: '1.00',
        order_currency: 'USD',
        order_description: `Refund ${LONE}`,
        card_token: 'tok',
        name: 'A',
      }),
    )
    expect(issuesOf(error)).toEqual([
      { path: 'order_description', message: expect.stringMatching(/unpaired UTF-16 surrogate/) },
    ])
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('S2S: in RECURRING_SALE order_description and GET_TRANS_STATUS trans_id', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.s2s.recurringSale({
        order_id: orderId(),
        order_amount: '1.00',
        order_description: `Plan ${LONE}`,
        recurring_first_trans_id: 't-1',
        recurring_token: 'r-1',
      }),
    )
    expect(issuesOf(error)).toEqual([
      { path: 'order_description', message: expect.stringMatching(/unpaired UTF-16 surrogate/) },
    ])
    const error2 = await rejection(ctx.gw.s2s.getTransStatus({ trans_id: `t${'\udfff'}` }))
    expect(issuesOf(error2).map((i) => i.path)).toEqual(['trans_id'])
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('a well-formed astral character (an emoji, a surrogate pair) is sent', async () => {
    const ctx = await setup()
    await ctx.gw.checkout.purchase({
      order: { number: orderId(), amount: '1.00', currency: 'USD', description: 'Mug 😀' },
      ...urls,
    })
    expect(ctx.server.requests).toHaveLength(1)
  })
})
