/**
 * `--signature` on `paywire sign`, `callback verify` and `sim`: the strrev scheme's hashes (python
 * hashlib vectors, never computed by the SDK), the cross-preset diagnosis of --compare, refusals,
 * and a strrev simulator refusing a seed-signed request while its callbacks verify with the SDK.
 *
 * Vectors, printed by:
 *   python3 -c 'import hashlib
 *   up=lambda s:"".join(c.upper() if "a"<=c<="z" else c for c in s); md5=lambda s:hashlib.md5(s.encode()).hexdigest()
 *   P="Pa55-word";E="payer@example.com";D="411111"+"1111";T="8f0c-ab";S="9b0c6e1a-3f7d-4c2e-8a51-7d2f0e4b9c13"
 *   print(md5(up(E[::-1]+P+T+D[::-1])))   # CAPTURE / S2S callback
 *   print(md5(up(P[::-1])))               # CREATE_SCHEDULE
 *   print(md5(up((S+P)[::-1])))           # DELETE_SCHEDULE
 *   print(md5(up(E[::-1]+P+D[::-1])))'    # RECURRING_SALE
 */

import { CardGateway, type PayerCard } from '@paywire/card-gateway'
import { describe, expect, it } from 'vitest'
import { baseEnv, coreutilsHash, ORDER, runCli, useSims } from './helpers.js'

const PASSWORD = 'Pa55-word'
const env = baseEnv({ PAYWIRE_CARD_PASSWORD: PASSWORD })
const run = (...args: string[]) => runCli(args, { env })
const PAYER = ['--payer-email', 'payer@example.com', '--card-first6', '411111', '--card-last4', '1111']
const S = '9b0c6e1a-3f7d-4c2e-8a51-7d2f0e4b9c13'
const V = {
  capture: 'e0ea0d8b4dba032e86c274474ea8bf6a',
  createSchedule: 'f37bb26b47ed2de5f9c0564346d315e8',
  deleteSchedule: '1d943eec23520792a476c0ba7827985e',
  recurringSale: 'e2a7fa6c1d5c39ed9b2a3acdb553c3bc',
}

describe('paywire sign --signature card-md5-strrev', () => {
  it('signs each operation family with its formula', async () => {
    const strrev = ['--signature', 'card-md5-strrev']
    expect((await run('sign', 'CAPTURE', ...strrev, '--field', 'trans_id=8f0c-ab', ...PAYER)).stdout).toBe(
      `${V.capture}\n`,
    )
    expect((await run('sign', 'CREATE_SCHEDULE', ...strrev)).stdout).toBe(`${V.createSchedule}\n`)
    expect((await run('sign', 'DELETE_SCHEDULE', ...strrev, '--field', `schedule_id=${S}`)).stdout).toBe(
      `${V.deleteSchedule}\n`,
    )
    expect((await run('sign', 'RECURRING_SALE', ...strrev, '--field', 'order_id=R-1', ...PAYER)).stdout).toBe(
      `${V.recurringSale}\n`,
    )
    // Checkout keeps the seed formula on this preset.
    expect((await run('sign', 'checkout.status', ...strrev, '--field', 'order_id=o-9')).stdout).toBe(
      `${coreutilsHash('O-9PA55-WORD')}\n`,
    )
  })

  it('--explain shows the formula and the reversed parts with the password masked', async () => {
    const result = await run(
      'sign',
      'CAPTURE',
      '--signature',
      'card-md5-strrev',
      '--field',
      'trans_id=8f0c-ab',
      ...PAYER,
      '--explain',
    )
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('md5(UPPER(strrev(email) + PASSWORD + trans_id + strrev(first6 + last4')
    expect(result.stdout).toContain('moc.elpmaxe@reyap{password}8f0c-ab1111111114')
    expect(result.stdout).toContain(V.capture)
    expect(result.stdout + result.stderr).not.toContain(PASSWORD)
  })

  it('--compare names the preset a hash matches when it is not the one chosen, both ways', async () => {
    const seed = await run('sign', 'CAPTURE', '--field', 'trans_id=8f0c-ab', ...PAYER, '--compare', V.capture)
    expect(seed.code).toBe(1)
    expect(seed.stdout).toContain('this hash matches preset card-md5-strrev')
    const json = await run('sign', 'CAPTURE', '--field', 'trans_id=8f0c-ab', ...PAYER, '--compare', V.capture, '--json')
    expect(JSON.parse(json.stdout)).toMatchObject({ match: false, matchesPreset: 'card-md5-strrev' })
    const seedHash = coreutilsHash('8F0C-ABPA55-WORD')
    const strrev = await run(
      'sign',
      'CAPTURE',
      '--signature',
      'card-md5-strrev',
      '--field',
      'trans_id=8f0c-ab',
      ...PAYER,
      '--compare',
      seedHash,
    )
    expect(strrev.code).toBe(1)
    expect(strrev.stdout).toContain('this hash matches preset seed')
  })

  it('refuses an unknown preset, missing payer data, and an action the scheme does not sign', async () => {
    const unknown = await run('sign', 'CAPTURE', '--signature', 'md5', '--field', 'trans_id=t')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/--signature must be seed or card-md5-strrev/)
    const noPayer = await run('sign', 'CAPTURE', '--signature', 'card-md5-strrev', '--field', 'trans_id=t')
    expect(noPayer.code).toBe(2)
    expect(noPayer.stderr).toMatch(/--payer-email/)
    const byOrder = await run(
      'sign',
      'GET_TRANS_STATUS_BY_ORDER',
      '--signature',
      'card-md5-strrev',
      '--field',
      'order_id=o',
    )
    expect(byOrder.code).toBe(2)
    expect(byOrder.stderr).toMatch(/publishes no signature for GET_TRANS_STATUS_BY_ORDER/)
    const digest = await run('sign', 'CREATE_SCHEDULE', '--signature', 'card-md5-strrev', '--digest', 'sha256')
    expect(digest.code).toBe(2)
    expect(digest.stderr).toMatch(/--digest does not apply/)
    const badCard = await run(
      'sign',
      'CAPTURE',
      '--signature',
      'card-md5-strrev',
      '--field',
      'trans_id=t',
      '--payer-email',
      'a@b',
      '--card-first6',
      '4111111111111111',
      '--card-last4',
      '1111',
    )
    expect(badCard.code).toBe(2)
    expect(badCard.stderr).toMatch(/first 6 digits/)
  })
})

describe('paywire callback verify --signature card-md5-strrev', () => {
  const body = (hash: string) =>
    `action=CAPTURE&result=SUCCESS&status=SETTLED&order_id=A-1&trans_id=8f0c-ab&hash=${hash}`
  const verify = (input: string, ...args: string[]) =>
    runCli(['callback', 'verify', '--signature', 'card-md5-strrev', ...args], { env, input })

  it('verifies a genuine S2S callback with the payer data given, and refuses a forged one', async () => {
    const genuine = await verify(body(V.capture), ...PAYER)
    expect(genuine.code).toBe(0)
    expect(genuine.stdout).toContain('verified')
    const forged = await verify(body(V.deleteSchedule), ...PAYER)
    expect(forged.code).toBe(1)
    expect(forged.stdout).toContain('hash_mismatch')
    expect(forged.stdout).not.toContain(V.capture) // no forging oracle without --show-expected
  })

  it('refuses an S2S callback when no payer data is given, never passing it', async () => {
    const result = await verify(body(V.capture))
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('unknown_payer')
  })
})

const { sim } = useSims()

describe('paywire sim --signature card-md5-strrev', () => {
  it('refuses a seed-signed S2S request with the gateway hash error; strrev-signed calls pass and its callbacks verify in the SDK', async () => {
    const s = await sim('--services', 'card', '--signature', 'card-md5-strrev')
    const c = s.description.card
    if (!c) throw new Error('no card simulator')
    expect(c).toMatchObject({ signature: 'card-md5-strrev' })
    const records = new Map<string, PayerCard>()
    const base = { checkoutUrl: c.checkoutUrl, s2sUrl: c.s2sUrl, merchantKey: c.merchantKey, clientKey: c.clientKey }
    const gw = new CardGateway({
      ...base,
      password: c.password,
      signature: 'card-md5-strrev',
      payerLookup: (ref) => (ref.transId ? records.get(ref.transId) : undefined),
    })
    const seedClient = new CardGateway({ ...base, password: c.password })
    try {
      await gw.checkout.purchase({
        order: ORDER,
        customer: { email: 'payer@example.com' },
        success_url: 'https://shop.example/ok',
        cancel_url: 'https://shop.example/cancel',
      })
      const paid = await s.control('POST', '/card/payments/A-1/pay', { expiry: '01/2038' })
      const transId = String(paid.body.trans_id)
      records.set(transId, { email: 'payer@example.com', cardFirst6: '411111', cardLast4: '1111' })

      const refused = await seedClient.s2s.capture({ trans_id: transId }).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(refused).toMatchObject({ code: 100000, reason: 'hash_invalid' })

      expect((await gw.s2s.capture({ trans_id: transId })).status).toBe('SETTLED')
      const callbacks = await s.control('GET', '/callbacks')
      const bodies: string[] = callbacks.body.map((c: { body: string }) => c.body)
      const s2sBody = bodies.find((b) => b.startsWith('action=CAPTURE'))
      expect(s2sBody).toBeDefined()
      expect(gw.callbacks.verify(s2sBody as string).trans_id).toBe(transId)
    } finally {
      await gw.close()
      await seedClient.close()
    }
  })

  it('refuses an unknown --signature', async () => {
    const result = await runCli(['sim', '--signature', 'nope', '--port', '0'], { env: baseEnv() })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/--signature must be seed or card-md5-strrev/)
  })
})
