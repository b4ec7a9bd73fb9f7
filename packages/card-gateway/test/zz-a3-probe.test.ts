import { request } from 'undici'
import { expect, it } from 'vitest'
import { SIMULATOR_CREDENTIALS, simulatorHash } from '../src/testing/index.js'
import { orderId, paidPayment, setup } from './helpers.js'
const { merchantKey, clientKey, password } = SIMULATOR_CREDENTIALS
async function postRaw(url: string, path: string, type: string, body: string) {
  const a = await request(`${url}${path}`, { method: 'POST', headers: { 'content-type': type }, body })
  return { status: a.statusCode, body: await a.body.text() }
}
it('dup action', async () => {
  const ctx = await setup()
  const p = await paidPayment(ctx)
  ctx.simulator.failNext({ action: 'CAPTURE' })
  const h = simulatorHash([p.trans_id], password)
  const r = await postRaw(ctx.url, '/post', 'application/x-www-form-urlencoded', `action=GET_TRANS_STATUS&client_key=${clientKey}&trans_id=${p.trans_id}&hash=${h}&action=CAPTURE`)
  console.log('DUP', r.status, r.body, ctx.simulator.ledger.map((e) => e.kind))
})
it('credit zero', async () => {
  const ctx = await setup()
  const p = await paidPayment(ctx, { capture: true, reqToken: true })
  const pay = ctx.simulator.payment(p.trans_id)!
  console.log('PAY', pay.status, pay.card_token)
  const id = orderId('c')
  const body = { merchant_key: merchantKey, operation: 'credit', order_id: id, order_amount: '0.00', order_currency: 'USD', order_description: 'R', card_token: pay.card_token, hash: simulatorHash([id, '0.00', 'USD', 'R'], password) }
  const r = await postRaw(ctx.url, '/api/v1/payment/card/credit', 'application/json', JSON.stringify(body))
  console.log('ZERO', r.status, r.body, ctx.simulator.payment(p.trans_id)?.status, ctx.simulator.payment(p.trans_id)?.refundedAmount)
})
it('urls', async () => {
  const ctx = await setup()
  for (const u of ['HTTPS://shop.example/ok', 'https://bücher.example/ok', 'https://[::ffff:127.0.0.1]/', 'https://0x7f000001/', 'https://127.0.0.1.nip.io/', 'https://user:pw@shop.example/', 'https://shop.example:8443/', 'https://[2001:db8::1]/', 'https://[::1]/', 'https://shop.example./ok', 'https://localhost./', 'https://2130706433/', 'https://0177.0.0.1/', 'https://shop%2eexample/x', 'https://xn--bcher-kva.example/']) {
    const number = orderId()
    const body = { merchant_key: merchantKey, operation: 'purchase', order: { number, amount: '10.00', currency: 'EUR', description: 'dd' }, success_url: u, cancel_url: 'https://shop.example/c', hash: simulatorHash([number, '10.00', 'EUR', 'd'], password) }
    const r = await postRaw(ctx.url, '/api/v1/session', 'application/json', JSON.stringify(body))
    let sdk = 'ok'
    try { await ctx.gw.checkout.purchase({ order: { number: orderId(), amount: '10.00', currency: 'EUR', description: 'dd' }, success_url: u, cancel_url: 'https://shop.example/c' }) } catch (e) { sdk = (e as Error).message.slice(0,200) }
    console.log('URL', u, r.status, 'sdk', sdk, r.body.slice(0,150))
  }
})
it('per-currency client', async () => {
  const ctx = await setup({ client: { platformDefaults: { amountForm: 'per-currency' } } as never })
  for (const [amount, currency] of [['10.500', 'KWD'], ['100', 'ISK'], ['100.00', 'JPY'], ['100.00', 'UGX'], ['10.00', 'EUR']]) {
    try {
      await ctx.gw.checkout.credit({ order_id: orderId(), order_amount: amount, order_currency: currency, order_description: 'R', card_token: 'tok', name: 'A B' } as never)
      console.log('CREDIT', amount, currency, 'ok')
    } catch (e) { console.log('CREDIT', amount, currency, (e as Error).name, (e as Error).message.slice(0, 200)) }
  }
})
it('private redirect client', async () => {
  const ctx = await setup({ client: { allowPrivateRedirectUrls: true } as never })
  try {
    await ctx.gw.checkout.purchase({ order: { number: orderId(), amount: '10.00', currency: 'EUR', description: 'dd' }, success_url: 'https://localhost/ok', cancel_url: 'https://shop.example/c' })
    console.log('PRIV ok')
  } catch (e) { console.log('PRIV', (e as Error).name, (e as Error).message.slice(0, 300)) }
})
