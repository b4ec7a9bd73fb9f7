/**
 * From the attacker's side (found in review): the journal's `open` runs before the call's
 * deadline starts and is bounded by nothing (no timer, not the caller's signal). A Redis that stalls
 * (the connection open, nothing answered: a long fork, a paused VM, a half-open path) holds a
 * money-moving call forever, past its `totalTimeout` and past the caller's abort. Nothing is sent,
 * but "every call ends by its deadline" does not hold, and the merchant's checkout hangs.
 */

import { CardGateway } from '@paywire/card-gateway'
import { createClient } from 'redis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type RedisClient, RedisIntentStore } from '../src/index.js'
import { describeWithRedis } from './redis-server.js'
import { type StallProxy, startStallProxy } from './stall-proxy.js'

describeWithRedis('a money-moving call with a stalled Redis journal', (server) => {
  let proxy: StallProxy
  let client: ReturnType<typeof createClient>
  beforeAll(async () => {
    proxy = await startStallProxy(server().port)
    client = createClient({ url: proxy.url })
    client.on('error', () => {})
    await client.connect()
  })
  afterAll(async () => {
    client?.destroy()
    await proxy?.close()
  })

  it("ends by its totalTimeout (and at the caller's abort) with nothing sent, even while the journal never answers", async () => {
    const gw = new CardGateway({
      checkoutUrl: 'http://127.0.0.1:9',
      s2sUrl: 'http://127.0.0.1:9',
      merchantKey: 'merchant',
      clientKey: 'client',
      password: 'password',
      journal: new RedisIntentStore({ client: client as unknown as RedisClient, keyPrefix: `stall-${Date.now()}:` }),
      timeout: 300,
      totalTimeout: 500,
    })
    proxy.stall()
    const abort = new AbortController()
    const call = gw.s2s.capture({ trans_id: 'trans-stall-1' }, { signal: abort.signal }).then(
      () => 'resolved',
      (error: unknown) => error,
    )
    // The call's own limit is 0.5 s; the caller gives up at 1 s; 5 s is the test's patience.
    const giveUp = setTimeout(() => abort.abort(new Error('the merchant gave up')), 1_000)
    const NEVER = 'no end: the call hangs past its totalTimeout and its abort'
    let timer: NodeJS.Timeout | undefined
    const ended = await Promise.race([
      call,
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(NEVER), 5_000)
      }),
    ])
    clearTimeout(timer)
    clearTimeout(giveUp)
    expect(ended).toMatchObject({ requestSent: false })
    await gw.close()
  }, 15_000)
})
