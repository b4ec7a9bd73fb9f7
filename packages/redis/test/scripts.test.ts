/**
 * The stores send each Lua script by its SHA-1 (EVALSHA); only a server that does not hold it (its
 * first use, a restart, `SCRIPT FLUSH`, another node of a cluster) is sent its text (EVAL), after
 * answering NOSCRIPT without running anything. Asserted through a proxy that counts and cuts
 * commands: the text crosses the wire once, and a cut at either command, before Redis read it or
 * after it ran, still leaves one record, answered as the first write answered.
 */

import { randomUUID } from 'node:crypto'
import { expect, it } from 'vitest'
import { RedisClaimStore, type RedisClient, RedisIntentStore } from '../src/index.js'
import { intentOf } from './contract.js'
import { type CutKind, cutRig } from './cut-proxy.js'
import { listed } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

describeWithRedis('scripts sent by their SHA-1, their text only to a server without them', (server) => {
  const rig = cutRig(server)
  const direct = () =>
    rig.direct as unknown as {
      scriptFlush(): Promise<unknown>
      scriptExists(sha1: string[]): Promise<unknown[]>
      hGetAll(key: string): Promise<Record<string, string>>
    }
  const event = (key: string) => ({ key, previousKeys: [], fields: '{"trans_id":"t-1"}', ref: 'ref-1' })

  it('a server without the script: EVALSHA is refused unrun, EVAL runs and caches it, the next call is EVALSHA alone', async () => {
    const prefix = `scripts-${randomUUID()}:`
    const store = new RedisClaimStore({ client: rig.viaProxy as RedisClient, keyPrefix: prefix })
    await direct().scriptFlush()
    rig.proxy.record()
    expect(await store.record(event('a'), 'token-a', 60_000)).toBe('taken')
    expect(await store.record(event('b'), 'token-b', 60_000)).toBe('taken')
    expect(rig.proxy.commands).toEqual(['EVALSHA', 'EVAL', 'EVALSHA'])
    // Ran once: one attempt counted, leased to its token.
    expect(await direct().hGetAll(`${prefix}inbox:event:a`)).toMatchObject({ state: 'running', attempts: '1' })
  })

  it('the journal too: an open on a server without its script is written once, whole', async () => {
    const prefix = `scripts-${randomUUID()}:`
    const journal = new RedisIntentStore({ client: rig.viaProxy as RedisClient, keyPrefix: prefix })
    const intent = intentOf({ service: 'card-gateway', createdAt: 1_000 })
    await direct().scriptFlush()
    rig.proxy.record()
    await journal.open(intent)
    expect(rig.proxy.commands).toEqual(['EVALSHA', 'EVAL'])
    expect(await listed(journal, 'card-gateway')).toStrictEqual([intent])
  })

  for (const at of [1, 2]) {
    for (const kind of ['request', 'reply'] as const satisfies readonly CutKind[]) {
      const command = at === 1 ? 'EVALSHA (answered NOSCRIPT)' : 'EVAL'
      it(`a cut of the ${kind} at the first use's ${command}: sent again with its token, the record answers as the first time, once`, async () => {
        const prefix = `scripts-${randomUUID()}:`
        const store = new RedisClaimStore({ client: rig.viaProxy as RedisClient, keyPrefix: prefix })
        await direct().scriptFlush()
        rig.proxy.arm(at, kind)
        const first = await store.record(event('a'), 'token-a', 60_000).then(
          (answer) => answer,
          (error: unknown) => error,
        )
        expect(first).toBeInstanceOf(Error) // the connection was cut: the caller cannot tell
        expect(rig.proxy.cuts).toBe(1)
        expect(await store.record(event('a'), 'token-a', 60_000)).toBe('taken')
        expect(await direct().hGetAll(`${prefix}inbox:event:a`)).toMatchObject({ state: 'running', attempts: '1' })
        // Another token is told the event is known: recorded once, never twice.
        expect(await store.record(event('a'), 'token-b', 60_000)).toBe('known')
      })
    }
  }
})
