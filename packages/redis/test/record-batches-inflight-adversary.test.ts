/**
 * RedisClaimStore.record with two record scripts in flight on one connection, from the attacker's
 * side, against a real redis-server. Redis is paused (CLIENT PAUSE WRITE) while the two scripts are
 * written, so both are on the wire together when the proxy cuts the connection: at the first
 * script's reply, at the second's, or at the second's request; then after SCRIPT FLUSH, at the
 * fallback EVAL. Each record sent again by its runner must answer as its first write, and no event
 * may be written twice (its receive time unchanged) or lost. Then two scripts that never come back
 * (the slow-batch release with both slots taken), the client closed or destroyed with two scripts
 * in flight and records waiting, and random bursts with reentrant runners and cuts.
 */

import { randomUUID } from 'node:crypto'
import type { NewEvent } from '@paywire/core'
import { expect, it } from 'vitest'
import { mulberry32 } from '../../../tests/reliability/support/random.js'
import { RedisClaimStore, type RedisClient } from '../src/index.js'
import { type CutKind, cutRig } from './cut-proxy.js'
import { connect } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

const event = (key: string, previousKeys: string[] = []): NewEvent => ({
  key,
  previousKeys,
  fields: `{"trans_id":"${key}"}`,
  ref: `ref-${key}`,
})

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A record as its runner makes it, and what its first write answers. */
interface Planned {
  readonly key: string
  readonly token: string
  readonly lease: number | undefined
}
const firstAnswer = (p: Planned) => (p.lease === undefined ? 'recorded' : 'taken')

describeWithRedis('RedisClaimStore.record, two scripts in flight, adversarial', (server) => {
  const rig = cutRig(server)
  const direct = () =>
    rig.direct as unknown as {
      hGetAll(key: string): Promise<Record<string, string>>
      zScore(key: string, member: string): Promise<unknown>
      sIsMember(key: string, member: string): Promise<unknown>
      sendCommand(args: string[]): Promise<unknown>
    }
  const fresh = () => `inflight-${randomUUID()}:`
  const storeOn = (client: unknown, prefix: string) =>
    new RedisClaimStore({ client: client as RedisClient, keyPrefix: prefix })

  /** `client` with its evalSha and eval calls counted: how many scripts the store handed it. */
  const counted = (client: unknown) => {
    const calls = { scripts: 0 }
    const wrapped = new Proxy(client as object, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver)
        if (typeof value !== 'function') return value
        if (name === 'evalSha' || name === 'eval') {
          return (...args: unknown[]) => {
            calls.scripts++
            return (value as (...a: unknown[]) => unknown).apply(target, args)
          }
        }
        return value.bind(target)
      },
    })
    return { client: wrapped, calls }
  }

  /** Waits (turns of the event loop, bounded) until `until()` holds. */
  const turnsUntil = async (until: () => boolean, what: string) => {
    for (let i = 0; i < 2_000; i++) {
      if (until()) return
      await turn()
    }
    throw new Error(`${what}: not after 2000 turns`)
  }

  /**
   * Runs `body` with Redis paused for writes (scripts wait unrun, their replies too), unpausing
   * when it returns or throws; a safety timeout of 5 s lifts the pause by itself.
   */
  const whilePaused = async <T>(body: () => Promise<T>): Promise<T> => {
    await direct().sendCommand(['CLIENT', 'PAUSE', '5000', 'WRITE'])
    try {
      return await body()
    } finally {
      await direct().sendCommand(['CLIENT', 'UNPAUSE'])
    }
  }
  /** A promise carried out of an async function without being waited for there. */
  interface Later<T> {
    readonly later: Promise<T>
  }

  /** What Redis holds for `key`: the fields that tell a first write from a second. */
  const stored = async (prefix: string, key: string) => {
    const hash = await direct().hGetAll(`${prefix}inbox:event:${key}`)
    return hash.state === undefined
      ? undefined
      : { state: hash.state, token: hash.token, attempts: hash.attempts, receivedAt: hash.receivedAt }
  }

  /**
   * After a cut: every record that was answered got its first write's answer; what Redis holds is
   * each record's own first write or nothing; each record sent again by its runner answers as its
   * first write, writes nothing more (the receive time of what stood is unchanged), and leaves
   * every event written once and indexed; another runner's record of the key is `known`.
   */
  const checkSentAgain = async (
    prefix: string,
    plan: readonly Planned[],
    outcomes: ReadonlyArray<PromiseSettledResult<string>>,
  ) => {
    const store = storeOn(rig.direct, prefix)
    const before = new Map<string, Awaited<ReturnType<typeof stored>>>()
    for (const [i, p] of plan.entries()) {
      const outcome = outcomes[i] as PromiseSettledResult<string>
      if (outcome.status === 'fulfilled') expect(outcome.value, p.key).toBe(firstAnswer(p))
      const now = await stored(prefix, p.key)
      before.set(p.key, now)
      if (outcome.status === 'fulfilled') expect(now, `${p.key} answered but not written`).toBeDefined()
      if (now !== undefined) {
        expect(now, p.key).toMatchObject({
          token: p.token,
          state: p.lease === undefined ? 'pending' : 'running',
          attempts: p.lease === undefined ? '0' : '1',
        })
      }
    }
    const again = await Promise.all(plan.map((p) => store.record(event(p.key), p.token, p.lease)))
    expect(again).toEqual(plan.map(firstAnswer))
    for (const p of plan) {
      const now = await stored(prefix, p.key)
      expect(now, `${p.key} lost`).toMatchObject({
        token: p.token,
        state: p.lease === undefined ? 'pending' : 'running',
        attempts: p.lease === undefined ? '0' : '1',
      })
      const was = before.get(p.key)
      if (was !== undefined) expect(now?.receivedAt, `${p.key} written twice`).toBe(was.receivedAt)
      expect(await direct().zScore(`${prefix}inbox:due`, p.key), `${p.key} not due`).not.toBeNull()
      expect(Number(await direct().sIsMember(`${prefix}inbox:ref:ref-${p.key}`, p.key)), p.key).toBe(1)
    }
    const others = await Promise.all(plan.map((p) => store.record(event(p.key), 'someone-else', 60_000)))
    expect(new Set(others)).toEqual(new Set(['known']))
  }

  /**
   * Makes `1 + waiting` records in one tick with Redis paused, so the first goes alone and the
   * next turn's script carries half of the rest, both on the wire and unanswered; arms the proxy;
   * then lets Redis go. Returns the plan, the records' outcomes, and the two scripts' records.
   */
  const twoOnTheWire = async (cuts: ReadonlyMap<number, CutKind>, waiting = 40) => {
    const prefix = fresh()
    const { client, calls } = counted(rig.viaProxy)
    const store = storeOn(client, prefix)
    const plan: Planned[] = Array.from({ length: 1 + waiting }, (_, i) => ({
      key: `e${i}`,
      token: `t-e${i}-${randomUUID()}`,
      lease: i % 3 === 2 ? undefined : 60_000,
    }))
    rig.proxy.arm(cuts)
    const requestCut = [...cuts.values()].includes('request')
    const outcomes = await whilePaused(async (): Promise<Later<Array<PromiseSettledResult<string>>>> => {
      const later = Promise.allSettled(plan.map((p) => store.record(event(p.key), p.token, p.lease)))
      await turnsUntil(() => calls.scripts >= 2, 'two scripts handed to node-redis')
      // node-redis writes on the next turn (setImmediate): let both reach the socket.
      for (let i = 0; i < 5; i++) await turn()
      // Redis answers neither while paused (a request cut fails both at once: the next may go).
      if (!requestCut) expect(calls.scripts, 'only two scripts in flight while Redis is paused').toBe(2)
      return { later }
    })
    const all = await outcomes.later
    // The first script carried e0; the second half of the 40 waiting and 1 in flight: e1..e21.
    const second = Math.ceil((waiting + 1) / 2)
    return { prefix, plan, outcomes: all, first: [0], second: Array.from({ length: second }, (_, i) => 1 + i) }
  }

  it("two scripts on the wire, the connection cut at the FIRST script's reply: both fail; the first was written, the second never reached Redis; sent again, each answers as its first write, nothing written twice", async () => {
    // Would catch: the second script's records answered with the first's (or anything) when the
    // connection is cut, a record of either written twice or not at all after the runner sends again.
    const { prefix, plan, outcomes, first, second } = await twoOnTheWire(new Map([[1, 'reply']]))
    expect(rig.proxy.cuts).toBe(1)
    for (const i of [...first, ...second])
      expect((outcomes[i] as PromiseSettledResult<string>).status, `e${i}`).toBe('rejected')
    expect(await stored(prefix, 'e0')).toBeDefined()
    for (const i of second) expect(await stored(prefix, `e${i}`), `e${i}`).toBeUndefined()
    // The records behind the two went on the connection made after the cut.
    for (const [i, outcome] of outcomes.entries()) {
      if (i > second.length)
        expect(outcome, `e${i}`).toEqual({ status: 'fulfilled', value: firstAnswer(plan[i] as Planned) })
    }
    await checkSentAgain(prefix, plan, outcomes)
  })

  it("two scripts on the wire, the connection cut at the SECOND script's reply: Redis ran both, the second's records fail; sent again, each answers as its first write, nothing written twice", async () => {
    const { prefix, plan, outcomes, second } = await twoOnTheWire(new Map([[2, 'reply']]))
    expect(rig.proxy.cuts).toBe(1)
    for (const i of second) {
      expect((outcomes[i] as PromiseSettledResult<string>).status, `e${i}`).toBe('rejected')
      expect(await stored(prefix, `e${i}`), `e${i} ran`).toBeDefined()
    }
    await checkSentAgain(prefix, plan, outcomes)
  })

  it("two scripts on the wire, the connection cut at the SECOND script's request: the second is never written; the first at most once; sent again, each answers as its first write", async () => {
    const { prefix, plan, outcomes, second } = await twoOnTheWire(new Map([[2, 'request']]))
    expect(rig.proxy.cuts).toBe(1)
    for (const i of second) {
      expect((outcomes[i] as PromiseSettledResult<string>).status, `e${i}`).toBe('rejected')
    }
    // Nothing of the cut script reached Redis (what came after it is answered on a new connection).
    for (const i of second) {
      const outcome = outcomes[i] as PromiseSettledResult<string>
      if (outcome.status === 'rejected') expect(await stored(prefix, `e${i}`), `e${i}`).toBeUndefined()
    }
    await checkSentAgain(prefix, plan, outcomes)
  })

  it('after SCRIPT FLUSH, two scripts on the wire both fall back to EVAL; the connection cut at the first EVAL’s reply: sent again, each answers as its first write, nothing written twice', async () => {
    // Would catch: a fallback EVAL that runs a batch a second time, or whose lost reply leaves a
    // record that answers `known` to its own runner.
    await direct().sendCommand(['SCRIPT', 'FLUSH'])
    try {
      const { prefix, plan, outcomes, first } = await twoOnTheWire(new Map([[3, 'reply']]), 10)
      expect(rig.proxy.cuts).toBe(1)
      expect(rig.proxy.commands.slice(0, 3)).toEqual(['EVALSHA', 'EVALSHA', 'EVAL'])
      for (const i of first) expect((outcomes[i] as PromiseSettledResult<string>).status).toBe('rejected')
      await checkSentAgain(prefix, plan, outcomes)
    } finally {
      // The rig's other tests count one EVALSHA per operation: every script back on the server.
      const { everyScript } = await import('../src/client.js')
      for (const script of everyScript()) await direct().sendCommand(['SCRIPT', 'LOAD', script.text])
    }
  })

  it('both scripts in flight never come back: past SLOW_BATCH_MS a record of another key goes and is answered; a record of a stuck key waits for its own script; answered late, each answers its own', async () => {
    // Would catch: the two stuck scripts holding every later record for ever (no release with two
    // in flight), a record of a stuck key sent beside it, a late answer given to the wrong caller.
    const prefix = fresh()
    const real = rig.direct as unknown as RedisClient
    const stuck: Array<{ run: () => void; fail: (error: Error) => void }> = []
    const pool = new Proxy(real, {
      get(target, name, receiver) {
        if (name === 'evalSha') {
          return (sha1: string, options: { keys: string[]; arguments: string[] }) => {
            if (stuck.length < 2)
              return new Promise((resolve, reject) => {
                stuck.push({ run: () => resolve(target.evalSha(sha1, options)), fail: reject })
              })
            return target.evalSha(sha1, options)
          }
        }
        const value = Reflect.get(target, name, receiver)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const store = storeOn(pool, prefix)
    const a = store.record(event('a'), 't-a', 60_000)
    await turn()
    const b = store.record(event('b'), 't-b', undefined)
    await turnsUntil(() => stuck.length === 2, 'two scripts stuck')
    const started = performance.now()
    let aAgainSettled = false
    const aAgain = store.record(event('a'), 't-a', 60_000).finally(() => {
      aAgainSettled = true
    })
    let behindBSettled = false
    const behindB = store.record(event('c', ['b']), 't-c', 60_000).finally(() => {
      behindBSettled = true
    })
    const other = store.record(event('d'), 't-d', 60_000)
    expect(await other).toBe('taken')
    expect(performance.now() - started).toBeGreaterThanOrEqual(900)
    expect({ aAgainSettled, behindBSettled }).toEqual({ aAgainSettled: false, behindBSettled: false })
    // The first answers late (Redis runs it now); the second's connection gives up.
    stuck[0]?.run()
    expect(await a).toBe('taken')
    expect(await aAgain).toBe('taken')
    for (let i = 0; i < 5; i++) await turn()
    expect(behindBSettled).toBe(false)
    stuck[1]?.fail(new Error('stuck connection closed'))
    await expect(b).rejects.toThrow('stuck connection closed')
    // c named b as its previous key: it went only after b's script settled, and b was never written.
    expect(await behindB).toBe('taken')
    expect(await stored(prefix, 'b')).toBeUndefined()
    expect(await store.record(event('b'), 't-b', undefined)).toBe('recorded')
  })

  for (const how of ['quit', 'close', 'destroy'] as const) {
    it(`the client ${how === 'quit' ? 'quit()' : `${how}()`} with two scripts in flight and records waiting: every record settles, each answered one written as answered, each sent again on a new client answers as its first write`, async () => {
      // Would catch: a record left waiting for ever when its batch cannot be sent (the client is
      // closed), an answer handed to the wrong record, a record written twice when sent again.
      const client = await connect(server().url)
      const { client: wrapped, calls } = counted(client)
      const prefix = fresh()
      const store = storeOn(wrapped, prefix)
      const plan: Planned[] = Array.from({ length: 31 }, (_, i) => ({
        key: `q${i}`,
        token: `t-q${i}`,
        lease: i % 2 === 0 ? 60_000 : undefined,
      }))
      let closing: Promise<unknown> | undefined
      const paused = await whilePaused(async () => {
        const settled = Promise.allSettled(plan.map((p) => store.record(event(p.key), p.token, p.lease)))
        await turnsUntil(() => calls.scripts >= 2, 'two scripts handed to node-redis')
        for (let i = 0; i < 5; i++) await turn()
        const c = client as unknown as { quit(): Promise<unknown>; close(): Promise<unknown>; destroy(): void }
        closing = how === 'destroy' ? Promise.resolve(c.destroy()) : how === 'quit' ? c.quit() : c.close()
        closing.catch(() => {})
        // A record made after the close began: refused, never left waiting.
        const late = store.record(event('late'), 't-late', 60_000)
        return { later: Promise.allSettled([settled, late]) }
      })
      const [batchOutcomes, late] = (await paused.later) as [
        PromiseSettledResult<Array<PromiseSettledResult<string>>>,
        PromiseSettledResult<string>,
      ]
      expect(batchOutcomes.status).toBe('fulfilled')
      const each = (batchOutcomes as PromiseFulfilledResult<Array<PromiseSettledResult<string>>>).value
      expect(each).toHaveLength(plan.length)
      // The ones on the wire are answered by a graceful close; what waited behind them cannot be sent.
      if (how !== 'destroy') {
        expect(each[0], how).toEqual({ status: 'fulfilled', value: 'taken' })
      }
      expect(late.status).toBe('rejected')
      await closing
      await checkSentAgain(prefix, plan, each)
    })
  }

  it('random bursts (fixed seeds) with reentrant runners and cuts of either kind at random commands: every record settles; sent again until answered, exactly one runner of each key gets its first write’s answer, every other `known`', async () => {
    // Would catch: a record that hangs after a cut with two in flight, an answer of one record
    // given to another, two runners of one key both told they wrote it, an event lost by a cut.
    for (const seed of [8, 31]) {
      const random = mulberry32(seed)
      const prefix = fresh()
      const store = storeOn(rig.viaProxy, prefix)
      const cuts = new Map<number, CutKind>()
      for (let n = 2; n < 60; n += 2 + Math.floor(random() * 8)) cuts.set(n, random() < 0.5 ? 'reply' : 'request')
      rig.proxy.arm(cuts)
      const keySpace = 30
      const finals: Array<Promise<{ key: string; token: string; lease: number | undefined; answer: string }>> = []
      let runners = 0
      const run = (key: string): void => {
        const token = `t${runners++}-${seed}`
        const lease = random() < 0.5 ? 60_000 : undefined
        const attempt = async (tries: number): Promise<string> => {
          try {
            return await store.record(event(key), token, lease)
          } catch (error) {
            if (tries >= 30) throw error
            return attempt(tries + 1)
          }
        }
        finals.push(
          attempt(0).then((answer) => {
            // A runner whose answer arrives records the next callback at once (reentrant).
            if (runners < 260 && random() < 0.35) run(`s${Math.floor(random() * keySpace)}`)
            return { key, token, lease, answer }
          }),
        )
      }
      for (let burst = 0; burst < 25; burst++) {
        for (let i = Math.floor(random() * 9); i > 0; i--) run(`s${Math.floor(random() * keySpace)}`)
        if (random() < 0.6) await turn()
      }
      for (let seen = -1; seen !== finals.length; ) {
        seen = finals.length
        await Promise.all(finals)
      }
      const results = await Promise.all(finals)
      expect(rig.proxy.cuts, `seed ${seed}: cuts happened`).toBeGreaterThan(0)
      rig.proxy.record()
      const byKey = new Map<string, typeof results>()
      for (const one of results) byKey.set(one.key, [...(byKey.get(one.key) ?? []), one])
      for (const [key, mine] of byKey) {
        const now = await stored(prefix, key)
        expect(now, `seed ${seed}: ${key} lost`).toBeDefined()
        const writers = mine.filter((one) => one.answer !== 'known')
        expect(
          writers.map((one) => one.token),
          `seed ${seed}: ${key}`,
        ).toEqual([now?.token])
        const [writer] = writers
        expect(writer?.answer, `seed ${seed}: ${key}`).toBe(writer?.lease === undefined ? 'recorded' : 'taken')
        expect(now?.state).toBe(writer?.lease === undefined ? 'pending' : 'running')
      }
    }
  })
})
