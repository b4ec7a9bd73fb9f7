import { RequestValidationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { orderId, paidPayment, rejection, setup } from './helpers.js'

const order = () => ({ number: orderId(), amount: '1.00', currency: 'USD', description: 'Mug' })
const PUBLIC = { success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' }

/** Hosts the payer's browser cannot reach on the merchant's public site. */
const NOT_PUBLIC: readonly [string, RegExp][] = [
  ['https://127.0.0.1/ok', /loopback/],
  ['https://127.8.9.10/ok', /loopback/],
  ['https://10.0.0.5/ok', /private/],
  ['https://172.16.4.1/ok', /private/],
  ['https://192.168.1.20/ok', /private/],
  ['https://100.64.0.1/ok', /private/],
  ['https://169.254.1.1/ok', /link-local/],
  ['https://0.0.0.0/ok', /unspecified/],
  ['https://localhost/ok', /loopback/],
  ['https://shop.localhost/ok', /loopback/],
  ['https://intranet/ok', /single-label/],
  ['https://foo.local/ok', /local network/],
  ['https://[::1]/ok', /loopback/],
  ['https://[::]/ok', /unspecified/],
  ['https://[fd12:3456::1]/ok', /private/],
  ['https://[fe80::1]/ok', /link-local/],
  ['https://[::ffff:10.0.0.1]/ok', /private/],
  ['https://2130706433/ok', /loopback/], // 127.0.0.1 written as one number
  // Issue 26 item 17: IPv4 inside IPv6, in every form a browser or a NAT64/6to4 gateway reaches it by.
  ['https://[::127.0.0.1]/ok', /loopback/], // IPv4-compatible
  ['https://[::7f00:1]/ok', /loopback/],
  ['https://[::ffff:127.0.0.1]/ok', /loopback/], // IPv4-mapped
  ['https://[::ffff:7f00:1]/ok', /loopback/],
  ['https://[0:0:0:0:0:ffff:7f00:1]/ok', /loopback/],
  ['https://[0000:0000:0000:0000:0000:FFFF:7F00:0001]/ok', /loopback/], // leading zeros, capitals
  ['https://[::ffff:0:127.0.0.1]/ok', /loopback/], // IPv4-translated (SIIT)
  ['https://[64:ff9b::127.0.0.1]/ok', /loopback/], // NAT64 well-known prefix
  ['https://[64:ff9b::10.1.2.3]/ok', /private/],
  ['https://[64:ff9b:1::a00:1]/ok', /private/], // local-use NAT64 prefix
  ['https://[2002:7f00:1::]/ok', /loopback/], // 6to4 of 127.0.0.1
  ['https://[2002:c0a8:101::1]/ok', /private/], // 6to4 of 192.168.1.1
  ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/ok', /loopback/], // Teredo, client 127.0.0.1 (XOR-ed)
  ['https://[::]/ok', /unspecified/],
  ['https://[0::0:1]/ok', /loopback/],
  ['https://0x7f.1/ok', /loopback/],
  ['https://017700000001/ok', /loopback/],
  ['https://127.1/ok', /loopback/],
  ['https://[2001:db8::1]/ok', /documentation/],
]

/** Public IPv6 forms that must still pass: the checks classify, they do not refuse all IPv6. */
const PUBLIC_IPV6 = ['https://[2606:4700::1111]/ok', 'https://[64:ff9b::8.8.8.8]/ok', 'https://[2002:808:808::1]/ok']

describe('redirect targets must be public HTTPS URLs (platform rule)', () => {
  it.each(NOT_PUBLIC)('purchase refuses success_url %s before sending, naming the rule', async (url, why) => {
    const ctx = await setup()
    const error = await rejection(ctx.gw.checkout.purchase({ order: order(), ...PUBLIC, success_url: url }))
    expect(error).toBeInstanceOf(RequestValidationError)
    const issues = (error as RequestValidationError).issues
    expect(issues).toHaveLength(1)
    expect(issues[0]?.path).toBe('success_url')
    expect(issues[0]?.message).toMatch(why)
    expect(issues[0]?.message).toMatch(/allowPrivateRedirectUrls/)
    expect(ctx.server.requests).toHaveLength(0)
  })

  it.each(PUBLIC_IPV6)('accepts the public address %s (its embedded IPv4, if any, is public)', async (url) => {
    const ctx = await setup()
    await ctx.gw.checkout.purchase({ order: order(), ...PUBLIC, success_url: url })
    expect(ctx.server.requests).toHaveLength(1)
  })

  // The client remembers accepted redirect URLs (so a shop's fixed URLs are parsed once): a refused
  // one must never be remembered, and a full memory must not let an unchecked URL through.
  it('a refused URL stays refused, before and after the memory of accepted URLs fills and is cleared', async () => {
    const ctx = await setup()
    const refused = () =>
      rejection(ctx.gw.checkout.purchase({ order: order(), ...PUBLIC, success_url: 'https://10.0.0.5/ok' }))
    expect(await refused()).toBeInstanceOf(RequestValidationError)
    expect(await refused()).toBeInstanceOf(RequestValidationError)
    // Concurrently: 300 round trips one after another took over 15 s on a loaded CI machine.
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        ctx.gw.checkout.purchase({ order: order(), ...PUBLIC, success_url: `https://shop.example/ok/${i}` }),
      ),
    )
    expect(await refused()).toBeInstanceOf(RequestValidationError)
    expect(ctx.server.requests).toHaveLength(300)
  })

  it('checks cancel_url, expiry_url and error_url the same way', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.checkout.purchase({
        order: order(),
        success_url: PUBLIC.success_url,
        cancel_url: 'https://10.0.0.5/cancel',
        expiry_url: 'https://localhost/expired',
        error_url: 'https://[::1]/error',
      }),
    )
    expect((error as RequestValidationError).issues.map((i) => i.path)).toEqual([
      'cancel_url',
      'expiry_url',
      'error_url',
    ])
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('RECURRING_SALE refuses a private term_url_3ds before sending', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.s2s.recurringSale({
        order_id: orderId(),
        order_amount: '1.00',
        order_description: 'Plan',
        recurring_first_trans_id: 't-1',
        recurring_token: 'r-1',
        term_url_3ds: 'https://192.168.0.10/3ds',
      }),
    )
    expect((error as RequestValidationError).issues).toEqual([
      { path: 'term_url_3ds', message: expect.stringMatching(/private/) },
    ])
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('still refuses plain http and non-URLs, with their own reason', async () => {
    const ctx = await setup()
    const error = await rejection(
      ctx.gw.checkout.purchase({ order: order(), success_url: 'http://shop.example/ok', cancel_url: 'not a url' }),
    )
    const issues = (error as RequestValidationError).issues
    expect(issues).toEqual([
      { path: 'success_url', message: expect.stringMatching(/https:/) },
      { path: 'cancel_url', message: expect.stringMatching(/absolute/) },
    ])
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('public hosts pass: names with a dot and public addresses', async () => {
    const ctx = await setup()
    await ctx.gw.checkout.purchase({
      order: order(),
      success_url: 'https://shop.example/ok',
      cancel_url: 'https://8.8.8.8/cancel',
      error_url: 'https://[2001:4860:4860::8888]/error',
      expiry_url: 'https://172.32.0.1/expired', // just outside 172.16/12
    })
    expect(ctx.server.requests).toHaveLength(1)
  })

  it('allowPrivateRedirectUrls: true sends private and loopback targets (sandboxes, staging), https only except on loopback', async () => {
    // The simulator refuses private targets as the live gateway does; a lenient one stands in for a staging host.
    const ctx = await setup({ client: { allowPrivateRedirectUrls: true }, sim: { lenient: true } })
    await ctx.gw.checkout.purchase({
      order: order(),
      success_url: 'https://127.0.0.1/ok',
      cancel_url: 'https://intranet/cancel',
      expiry_url: 'https://10.0.0.5/expired',
      error_url: 'https://[::1]/error',
    })
    expect(ctx.server.requests).toHaveLength(1)
    const body = JSON.parse(ctx.server.requests[0]?.body ?? '')
    expect(body.success_url).toBe('https://127.0.0.1/ok')
    const paid = await paidPayment(ctx, { capture: true, recurring: true })
    await ctx.gw.s2s.recurringSale({
      order_id: orderId(),
      order_amount: '1.00',
      order_description: 'Plan',
      recurring_first_trans_id: paid.trans_id,
      recurring_token: paid.recurring_token as string,
      term_url_3ds: 'https://staging.internal/3ds',
    })
    const error = await rejection(
      ctx.gw.checkout.purchase({ order: order(), ...PUBLIC, success_url: 'http://10.0.0.5/ok' }),
    )
    expect((error as RequestValidationError).issues[0]?.path).toBe('success_url')
  })

  it('local development: with allowPrivateRedirectUrls an http loopback return URL is sent (the shop on this machine); without it, refused as before', async () => {
    const local = { success_url: 'http://localhost:3000/paid', cancel_url: 'http://127.0.0.1:3000/cancel' }
    const dev = await setup({ client: { allowPrivateRedirectUrls: true } })
    await dev.gw.checkout.purchase({ order: order(), ...local, error_url: 'http://[::1]:3000/error' })
    expect(dev.server.requests).toHaveLength(1)
    for (const target of [
      'http://shop.example/paid',
      'http://192.168.1.4/paid',
      'http://localhost.shop.example/paid',
    ]) {
      const refused = await rejection(dev.gw.checkout.purchase({ order: order(), ...PUBLIC, success_url: target }))
      expect([target, (refused as RequestValidationError).issues[0]?.path]).toEqual([target, 'success_url'])
    }
    const production = await setup({})
    const error = await rejection(production.gw.checkout.purchase({ order: order(), ...local }))
    expect((error as RequestValidationError).issues.map((i) => i.path)).toEqual(['success_url', 'cancel_url'])
    expect(production.server.requests).toHaveLength(0)
  })
})
