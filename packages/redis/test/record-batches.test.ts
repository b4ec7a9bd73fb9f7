/**
 * The record's group commit against a real redis-server, through a proxy that counts and cuts
 * commands: records made together go as one script and each gets its own answer; an event Redis
 * refuses fails alone; a lost reply fails the whole batch and each record sent again answers as
 * its first write did; what is written is the event as it was checked.
 */

import { randomUUID } from 'node:crypto'
import { expect, it } from 'vitest'
import { RedisClaimStore, type RedisClient } from '../src/index.js'
import { cutRig } from './cut-proxy.js'
import { describeWithRedis } from './redis-server.js'

describeWithRedis('RedisClaimStore.record in batches', (server) => {
  const rig = cutRig(server)
  const direct = () =>
    rig.direct as unknown as {
      hGetAll(key: string): Promise<Record<string, string>>
      set(key: string, value: string): Promise<unknown>
    }
  const setup = () => {
    const prefix = `batch-${randomUUID()}:`
    return { prefix, store: new RedisClaimStore({ client: rig.viaProxy as RedisClient, keyPrefix: prefix }) }
  }
  const event = (key: string, previousKeys: string[] = []) => ({
    key,
    previousKeys,
    fields: `{"trans_id":"${key}"}`,
    ref: `ref-${key}`,
  })

  it('records made while one is written go as one script, each answered its own, a second record of a key known', async () => {
    const { prefix, store } = setup()
    rig.proxy.record()
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`)
    const answers = await Promise.all([
      ...keys.map((key) => store.record(event(key), `token-${key}`, 60_000)),
      // The same key again, by another runner: it waits for a later batch and finds it recorded.
      store.record(event('k3'), 'token-other', 60_000),
      // An event whose previous key is being recorded: it too waits, and is written after it.
      store.record(event('k20', ['k5']), 'token-k20', undefined),
    ])
    expect(answers).toEqual([...keys.map(() => 'taken'), 'known', 'recorded'])
    // The first alone (nothing was in flight), the next eleven on the next turn (half of what waits
    // and is in flight), the rest in one or two more as the two in flight are answered: the second
    // k3 and k20 after the batch that had k3 and k5.
    expect(rig.proxy.commands.length).toBeGreaterThanOrEqual(3)
    expect(rig.proxy.commands.length).toBeLessThanOrEqual(4)
    expect(new Set(rig.proxy.commands)).toEqual(new Set(['EVALSHA']))
    for (const key of keys) {
      expect(await direct().hGetAll(`${prefix}inbox:event:${key}`)).toMatchObject({
        state: 'running',
        token: `token-${key}`,
        attempts: '1',
        ref: `ref-${key}`,
        fields: `{"trans_id":"${key}"}`,
      })
    }
    expect(await direct().hGetAll(`${prefix}inbox:event:k20`)).toMatchObject({ state: 'pending', attempts: '0' })
  })

  it("an event Redis refuses (its key is another program's string) fails alone; the rest of its batch is recorded", async () => {
    const { prefix, store } = setup()
    await direct().set(`${prefix}inbox:event:bad`, 'not a hash')
    rig.proxy.record()
    const first = store.record(event('first'), 't-first', 60_000)
    // The next turn's script carries half of the six waiting or in flight: a, bad and c.
    const [a, bad, c, d, e] = ['a', 'bad', 'c', 'd', 'e'].map((key) => store.record(event(key), `t-${key}`, 60_000))
    expect(await first).toBe('taken')
    expect(await a).toBe('taken')
    await expect(bad).rejects.toThrow(/^RedisClaimStore\.record: Redis refused the record: .*WRONGTYPE/)
    expect(await Promise.all([c, d, e])).toEqual(['taken', 'taken', 'taken'])
    expect(rig.proxy.commands).toEqual(['EVALSHA', 'EVALSHA', 'EVALSHA'])
    expect(await direct().hGetAll(`${prefix}inbox:event:c`)).toMatchObject({ state: 'running', token: 't-c' })
  })

  it("an event whose payment's set Redis refuses (another program's string) is not written at all", async () => {
    const { prefix, store } = setup()
    await direct().set(`${prefix}inbox:ref:ref-orphan`, 'not a set')
    await expect(store.record(event('orphan'), 't-orphan', 60_000)).rejects.toThrow(/WRONGTYPE/)
    // Nothing of it: no event running outside its payment's set (forget would never find it).
    expect(await direct().hGetAll(`${prefix}inbox:event:orphan`)).toEqual({})
    expect(
      await (rig.direct as unknown as { zScore(k: string, m: string): Promise<unknown> }).zScore(
        `${prefix}inbox:due`,
        'orphan',
      ),
    ).toBeNull()
  })

  it('an index another program wrote fails the whole script before anything of it is written', async () => {
    const { prefix, store } = setup()
    await direct().set(`${prefix}inbox:due`, 'not a sorted set')
    rig.proxy.record()
    const all = await Promise.allSettled(['a', 'b', 'c'].map((key) => store.record(event(key), `t-${key}`, 60_000)))
    for (const one of all)
      expect(one).toMatchObject({
        status: 'rejected',
        reason: { message: expect.stringMatching(/WRONGTYPE .*inbox:due is not the inbox index/) },
      })
    for (const key of ['a', 'b', 'c']) expect(await direct().hGetAll(`${prefix}inbox:event:${key}`)).toEqual({})
  })

  it('a lost reply fails every record of its batch; each sent again by its runner answers as its first write', async () => {
    const { prefix, store } = setup()
    // The second command is the batch of a, b and c (half of the six waiting or in flight): Redis
    // runs it, its reply never arrives. d and e go in a script of their own.
    rig.proxy.arm(2, 'reply')
    const first = store.record(event('first'), 't-first', 60_000)
    const batch = ['a', 'b', 'c'].map((key) => store.record(event(key), `t-${key}`, 60_000))
    const behind = Promise.allSettled(['d', 'e'].map((key) => store.record(event(key), `t-${key}`, 60_000)))
    const cutOff = Promise.allSettled(batch)
    expect(await first).toBe('taken')
    for (const one of await cutOff) expect(one).toMatchObject({ status: 'rejected', reason: expect.any(Error) })
    expect(rig.proxy.cuts).toBe(1)
    // Sent on the connection the cut closed, or after it on a new one: written at most once either way.
    for (const one of await behind) {
      if (one.status === 'fulfilled') expect(one.value).toBe('taken')
    }
    expect(await Promise.all(['d', 'e'].map((key) => store.record(event(key), `t-${key}`, 60_000)))).toEqual([
      'taken',
      'taken',
    ])
    for (const key of ['a', 'b', 'c']) {
      expect(await direct().hGetAll(`${prefix}inbox:event:${key}`)).toMatchObject({ state: 'running', attempts: '1' })
    }
    rig.proxy.record()
    expect(await Promise.all(['a', 'b', 'c'].map((key) => store.record(event(key), `t-${key}`, 60_000)))).toEqual([
      'taken',
      'taken',
      'taken',
    ])
    expect(await store.record(event('b'), 't-someone-else', 60_000)).toBe('known')
  })

  it('what is written is the event as record checked it, whatever the caller changes while it waits', async () => {
    const { prefix, store } = setup()
    const blocker = store.record(event('blocker'), 't-blocker', 60_000)
    const mutable = { key: 'mine', previousKeys: ['old-mine'], fields: '{"amount":"10.00"}', ref: 'ref-mine' }
    const waiting = store.record(mutable, 't-mine', 60_000)
    mutable.key = 'theirs'
    mutable.fields = '{"amount":"99999.00"}'
    mutable.ref = 'ref-theirs'
    mutable.previousKeys.push('blocker')
    expect(await blocker).toBe('taken')
    expect(await waiting).toBe('taken')
    expect(await direct().hGetAll(`${prefix}inbox:event:mine`)).toMatchObject({
      fields: '{"amount":"10.00"}',
      ref: 'ref-mine',
    })
    expect(await direct().hGetAll(`${prefix}inbox:event:theirs`)).toEqual({})
  })
})
