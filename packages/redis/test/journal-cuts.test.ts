/**
 * The intent journal on Redis when the connection drops at each command it sends (a TCP proxy cuts
 * it, before the command reaches Redis or after Redis ran it and before its reply arrives). Asserted
 * at every cut: a scan never throws, every intent whose open resolved (its call was sent) and whose
 * close did not is still listed, exactly as written, and no index entry is left without its record.
 */

import { randomUUID } from 'node:crypto'
import { CardGateway } from '@paywire/card-gateway'
import type { Intent } from '@paywire/core'
import { createClient } from 'redis'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { type JournalOrphan, type RedisClient, RedisIntentStore } from '../src/index.js'
import { intentOf } from './contract.js'
import { type CutKind, cutRig } from './cut-proxy.js'
import { listed } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

/** What each step of the journal's life sends with no cut: open A, open B, close A. */
const COMMANDS = ['EVALSHA', 'EVALSHA', 'GET', 'MULTI', 'ZREM', 'DEL', 'EXEC']

for (const major of [6, 5] as const) {
  describeWithRedis(`intent journal on Redis, connection cut at each command (node-redis ${major})`, (server) => {
    const rig = cutRig(server, major)

    /** Index entries of `service` with no record behind them, read straight from Redis. */
    async function orphans(prefix: string, service: string): Promise<string[]> {
      const ids = (await rig.direct.zRange(`${prefix}open:${service}`, 0, -1)) as string[]
      const missing: string[] = []
      for (const id of ids) if ((await rig.direct.get(`${prefix}intent:${id}`)) === null) missing.push(id)
      return missing
    }

    /**
     * Opens A and B and closes A through the proxy, with `cut` armed; after each step, scans the
     * journal over a clean connection. Returns what broke the rules, in words.
     */
    async function play(cut?: ReadonlyMap<number, CutKind>): Promise<string[]> {
      const prefix = `journal-cut-${randomUUID()}:`
      const service = 'card-gateway'
      const reported: JournalOrphan[] = []
      const journal = new RedisIntentStore({ client: rig.viaProxy as RedisClient, keyPrefix: prefix })
      const scanner = new RedisIntentStore({
        client: rig.direct,
        keyPrefix: prefix,
        onOrphan: (orphan) => reported.push(orphan),
      })
      const a = intentOf({ service, createdAt: 1_000 })
      const b = intentOf({ service, createdAt: 2_000 })
      const open = new Set<Intent>() // opened (its call was sent) and not known closed
      const maybe = new Set<Intent>() // an open or a close that failed: it may or may not be listed
      const problems: string[] = []
      const check = async (step: string) => {
        const lost = await orphans(prefix, service)
        if (lost.length > 0) problems.push(`${step}: index entries without a record: ${lost.length}`)
        let found: Intent[]
        try {
          found = await listed(scanner, service)
        } catch (error) {
          problems.push(`${step}: openIntents threw: ${String(error)}`)
          return
        }
        for (const intent of open) {
          if (!found.some((i) => i.id === intent.id)) problems.push(`${step}: opened intent ${intent.id} is not listed`)
        }
        for (const intent of found) {
          const known = [...open, ...maybe].find((i) => i.id === intent.id)
          if (!known) problems.push(`${step}: ${intent.id} is listed, closed or never opened`)
          else expect(intent).toStrictEqual(known)
        }
        if (reported.length > 0) problems.push(`${step}: the scan met ${reported.length} orphans`)
      }

      if (cut) rig.proxy.arm(cut)
      else rig.proxy.record()
      for (const intent of [a, b]) {
        try {
          await journal.open(intent)
          open.add(intent)
        } catch {
          maybe.add(intent) // not sent: reconcileAll would settle it as not applied
        }
        await check(`open ${intent === a ? 'A' : 'B'}`)
      }
      if (open.has(a)) {
        open.delete(a)
        try {
          await journal.close(a.id, 'applied')
        } catch {
          maybe.add(a) // still open, or closed: either is safe, reconcileAll settles it
        }
        await check('close A')
      }
      return problems
    }

    it('with no cut: open, open, close send one EVALSHA each for the opens and GET + MULTI ZREM DEL EXEC for the close', async () => {
      expect(await play()).toEqual([])
      expect(rig.proxy.commands).toEqual(COMMANDS)
    })

    it('a cut at every command, of either kind: no scan throws, no opened intent is lost, no index entry is left without its record', async () => {
      expect(await play()).toEqual([])
      const commands = [...rig.proxy.commands]
      const failures: string[] = []
      let cells = 0
      for (let at = 1; at <= commands.length; at++) {
        for (const kind of ['request', 'reply'] as const) {
          const problems = await play(new Map([[at, kind]]))
          cells++
          expect(rig.proxy.cuts).toBe(1)
          for (const p of problems) failures.push(`cut ${kind} of command ${at} (${commands[at - 1]}): ${p}`)
        }
      }
      expect(failures).toEqual([])
      expect(cells).toBe(commands.length * 2)
    }, 60_000)

    it('every attempt of the first open cut, and its undo cut or not: the open rejects, and the journal holds the whole intent or nothing', async () => {
      const reply = 'reply' as const
      const request = 'request' as const
      const cells: [string, Map<number, CutKind>, 'nothing' | 'whole'][] = [
        [
          '3 attempts never reach Redis; the undo finds nothing',
          new Map([
            [1, request],
            [2, request],
            [3, request],
          ]),
          'nothing',
        ],
        [
          '3 attempts run, replies lost; the undo removes both keys',
          new Map([
            [1, reply],
            [2, reply],
            [3, reply],
          ]),
          'nothing',
        ],
        [
          '3 attempts run; the undo runs, its reply lost',
          new Map([
            [1, reply],
            [2, reply],
            [3, reply],
            [4, reply],
          ]),
          'nothing',
        ],
        [
          '3 attempts run; the undo never reaches Redis',
          new Map([
            [1, reply],
            [2, reply],
            [3, reply],
            [4, request],
          ]),
          'whole',
        ],
      ]
      for (const [what, cut, left] of cells) {
        const prefix = `journal-undo-${randomUUID()}:`
        const journal = new RedisIntentStore({ client: rig.viaProxy as RedisClient, keyPrefix: prefix })
        const scanner = new RedisIntentStore({ client: rig.direct, keyPrefix: prefix, onOrphan: () => {} })
        const intent = intentOf({ service: 'card-gateway' })
        rig.proxy.arm(cut)
        const error = await journal.open(intent).then(
          () => undefined,
          (e: unknown) => e,
        )
        expect(String(error), what).toMatch(/failed 3 times writing intent .*; the call is not sent/)
        expect(rig.proxy.cuts, what).toBe(cut.size)
        expect(await orphans(prefix, 'card-gateway'), what).toEqual([])
        expect(await listed(scanner, 'card-gateway'), what).toStrictEqual(left === 'whole' ? [intent] : [])
      }
    })
  })
}

describeWithRedis(
  'an index entry left without its record (a journal written by an older version, or evicted)',
  (server) => {
    let client: ReturnType<typeof createClient>
    beforeAll(async () => {
      client = createClient({ url: server().url })
      await client.connect()
    })
    afterAll(async () => {
      await client.close()
    })

    it('openIntents, pendingIntents() and reconcileAll() skip it, remove it from the index and report it; the other intents are listed', async () => {
      const prefix = `orphan-${randomUUID()}:`
      const reported: JournalOrphan[] = []
      const journal = new RedisIntentStore({
        client: client as unknown as RedisClient,
        keyPrefix: prefix,
        onOrphan: (o) => reported.push(o),
      })
      const kept = intentOf({ service: 'card-gateway', createdAt: 5_000 })
      await journal.open(kept)
      const index = `${prefix}open:card-gateway`
      await client.zAdd(index, { score: 1_000, value: 'lost-id' })
      expect(await listed(journal, 'card-gateway')).toStrictEqual([kept])
      expect(await client.zScore(index, 'lost-id')).toBeNull() // repaired
      expect(reported).toEqual([
        expect.objectContaining({ service: 'card-gateway', id: 'lost-id', createdAt: 1_000, repaired: true }),
      ])
      expect(reported[0]?.message).toContain('lost-id')

      // Through a client: one orphan no longer fails the whole service.
      await client.zAdd(index, { score: 2_000, value: 'lost-again' })
      const gw = new CardGateway({
        checkoutUrl: 'https://checkout.example',
        s2sUrl: 'https://s2s.example',
        merchantKey: 'merchant',
        clientKey: 'client',
        password: 'password',
        journal,
      })
      try {
        expect((await gw.pendingIntents()).map(({ writtenAt: _, ...rest }) => rest)).toStrictEqual([kept])
        await journal.close(kept.id, 'applied')
        await client.zAdd(index, { score: 3_000, value: 'lost-third' })
        expect(await gw.reconcileAll()).toEqual([])
      } finally {
        await gw.close()
      }
      expect(reported.map((o) => o.id)).toEqual(['lost-id', 'lost-again', 'lost-third'])
      expect(await client.zRange(index, 0, -1)).toEqual([])
    })

    it('a record another program overwrote is skipped and reported on each scan, never deleted; the scan goes on', async () => {
      const prefix = `unreadable-${randomUUID()}:`
      const reported: JournalOrphan[] = []
      const journal = new RedisIntentStore({
        client: client as unknown as RedisClient,
        keyPrefix: prefix,
        onOrphan: (o) => reported.push(o),
      })
      const [bad, good] = [intentOf({ createdAt: 1 }), intentOf({ createdAt: 2 })]
      await journal.open(bad)
      await journal.open(good)
      await client.set(`${prefix}intent:${bad.id}`, 'not json')
      expect(await listed(journal, 'card-gateway')).toStrictEqual([good])
      expect(reported).toEqual([expect.objectContaining({ id: bad.id, repaired: false })])
      expect(await client.get(`${prefix}intent:${bad.id}`)).toBe('not json')
    })

    it('without onOrphan, the orphan is reported on console.error (never silent)', async () => {
      const prefix = `orphan-console-${randomUUID()}:`
      const journal = new RedisIntentStore({ client: client as unknown as RedisClient, keyPrefix: prefix })
      await client.zAdd(`${prefix}open:svc`, { score: 1, value: 'gone' })
      const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
      try {
        expect(await journal.openIntents('svc')).toEqual([])
        expect(String(logged.mock.calls[0]?.[0])).toContain('gone')
      } finally {
        logged.mockRestore()
      }
    })
  },
)
