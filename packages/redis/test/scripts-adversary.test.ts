/**
 * `runScript` (client.ts), from an independent review: a script sent by its SHA-1, its text only after NOSCRIPT. The
 * money-safety rule: one store call runs its script at most once, and a lost reply is never followed
 * by a second send. Attacked with a client double (a NOSCRIPT forged on EVAL itself, NOSCRIPT further
 * into an error's text, a cut connection) and against a real redis-server (a script's own refusal,
 * a lost EVALSHA reply after it ran, a pool whose EVALSHA and EVAL go out on different connections,
 * and each script's SHA-1 as Redis itself computes it).
 */

import { randomUUID } from 'node:crypto'
import { createClientPool } from 'redis'
import { describe, expect, it } from 'vitest'
import { everyScript, LuaScript, type RedisClient, runScript } from '../src/client.js'
import { RedisClaimStore, RedisIntentStore } from '../src/index.js'
import { intentOf } from './contract.js'
import { cutRig } from './cut-proxy.js'
import { describeWithRedis } from './redis-server.js'

/** A client double whose EVALSHA and EVAL answer as told, recording what was sent. */
function double(evalSha: () => Promise<unknown>, evalText: () => Promise<unknown>) {
  const sent: string[] = []
  const client = {
    evalSha: async () => {
      sent.push('EVALSHA')
      return evalSha()
    },
    eval: async () => {
      sent.push('EVAL')
      return evalText()
    },
  } as unknown as RedisClient
  return { client, sent }
}

const replyError = (message: string) => Object.assign(new Error(message), { name: 'ErrorReply' })
const script = new LuaScript('return 1')
const args = { keys: ['k'], arguments: ['a'] }

describe('runScript against a client double', () => {
  it('NOSCRIPT forged on the EVAL itself: refused once, never sent a third time', async () => {
    const noscript = () => Promise.reject(replyError('NOSCRIPT No matching script. Please use EVAL.'))
    const { client, sent } = double(noscript, noscript)
    await expect(runScript(client, script, args)).rejects.toThrow(/^NOSCRIPT/)
    expect(sent).toEqual(['EVALSHA', 'EVAL'])
  })

  it('NOSCRIPT anywhere but at the start of the error (a script failing, a proxy): the text is not sent', async () => {
    for (const message of [
      'ERR Error running script (call to f_x): @user_script:1: NOSCRIPT',
      ' NOSCRIPT No matching script',
      'noscript no matching script',
      'BUSY Redis is busy running a script (NOSCRIPT)',
    ]) {
      const { client, sent } = double(
        () => Promise.reject(replyError(message)),
        () => Promise.resolve(1),
      )
      await expect(runScript(client, script, args)).rejects.toThrow(message)
      expect(sent, message).toEqual(['EVALSHA'])
    }
  })

  it('a lost reply (the connection cut, the script maybe run): rejected, the text never sent', async () => {
    const { client, sent } = double(
      () => Promise.reject(new Error('Socket closed unexpectedly')),
      () => Promise.resolve(1),
    )
    await expect(runScript(client, script, args)).rejects.toThrow('Socket closed unexpectedly')
    expect(sent).toEqual(['EVALSHA'])
  })

  it('a non-Error rejection whose text starts with NOSCRIPT is not taken for a refusal', async () => {
    const { client, sent } = double(
      () => Promise.reject('NOSCRIPT'),
      () => Promise.resolve(1),
    )
    await expect(runScript(client, script, args)).rejects.toBe('NOSCRIPT')
    expect(sent).toEqual(['EVALSHA'])
  })
})

describeWithRedis('runScript against a real redis-server', (server) => {
  const rig = cutRig(server)
  const direct = () =>
    rig.direct as unknown as {
      scriptFlush(): Promise<unknown>
      scriptLoad(text: string): Promise<string>
      hGetAll(key: string): Promise<Record<string, string>>
      set(key: string, value: string): Promise<unknown>
      configResetStat(): Promise<unknown>
      info(section: string): Promise<string>
    }
  /** How many calls of `command` Redis counted since the last CONFIG RESETSTAT, and how many failed. */
  const stats = async (command: string) => {
    const line = (await direct().info('commandstats')).split('\r\n').find((l) => l.startsWith(`cmdstat_${command}:`))
    const field = (name: string) => Number(line?.match(new RegExp(`${name}=(\\d+)`))?.[1] ?? 0)
    return { calls: field('calls'), failed: field('failed_calls') }
  }
  const event = (key: string) => ({ key, previousKeys: [], fields: '{"trans_id":"t-1"}', ref: 'ref-1' })

  it("each store script's SHA-1 is the one Redis computes for its text", async () => {
    expect(everyScript().length).toBeGreaterThan(10)
    for (const each of everyScript()) expect(await direct().scriptLoad(each.text)).toBe(each.sha1)
  })

  it("a script's own refusal (the journal's WRONGTYPE) is final: no EVAL after it", async () => {
    const prefix = `review-${randomUUID()}:`
    const journal = new RedisIntentStore({ client: rig.viaProxy as RedisClient, keyPrefix: prefix })
    const intent = intentOf({ service: 'card-gateway', createdAt: 1_000 })
    await direct().set(`${prefix}open:card-gateway`, 'not a sorted set')
    rig.proxy.record()
    await expect(journal.open(intent)).rejects.toThrow(/refused.*WRONGTYPE/)
    expect(rig.proxy.commands).toEqual(['EVALSHA'])
  })

  it('the reply of an EVALSHA that ran is lost: one run, the text never sent after it', async () => {
    const prefix = `review-${randomUUID()}:`
    const store = new RedisClaimStore({ client: rig.viaProxy as RedisClient, keyPrefix: prefix })
    rig.proxy.arm(1, 'reply')
    await expect(store.record(event('a'), 'token-a', 60_000)).rejects.toBeInstanceOf(Error)
    expect(rig.proxy.commands).toEqual(['EVALSHA'])
    expect(await direct().hGetAll(`${prefix}inbox:event:a`)).toMatchObject({ state: 'running', attempts: '1' })
    expect(await store.record(event('a'), 'token-b', 60_000)).toBe('known')
  })

  it('a pool: EVALSHA refused on one connection, EVAL on another, the script run once', async () => {
    const pool = createClientPool({ url: server().url }, { minimum: 2, maximum: 2 })
    pool.on('error', () => {})
    await pool.connect()
    try {
      const prefix = `review-${randomUUID()}:`
      // A store per record (as four instances would be): one store sends records made together as one script.
      const store = () => new RedisClaimStore({ client: pool as unknown as RedisClient, keyPrefix: prefix })
      await direct().scriptFlush()
      await direct().configResetStat()
      const answers = await Promise.all(
        ['a', 'b', 'c', 'd'].map((key) => store().record(event(key), `t-${key}`, 60_000)),
      )
      expect(answers).toEqual(['taken', 'taken', 'taken', 'taken'])
      for (const key of ['a', 'b', 'c', 'd']) {
        expect(await direct().hGetAll(`${prefix}inbox:event:${key}`)).toMatchObject({ state: 'running', attempts: '1' })
      }
      // The first-use path was taken: EVALSHAs refused unrun (NOSCRIPT), each followed by one EVAL.
      const [sha, text] = [await stats('evalsha'), await stats('eval')]
      expect(sha.calls).toBe(4)
      expect(sha.failed).toBeGreaterThanOrEqual(1)
      expect(text.calls).toBe(sha.failed)
    } finally {
      await pool.close()
      // The rig's other tests expect every script on the server.
      for (const each of everyScript()) await direct().scriptLoad(each.text)
    }
  })
})
