import { MemoryClaimStore, MemoryIntentStore } from '@paywire/core'
import { createTestClock } from '@paywire/core/testing'
import { afterAll, beforeAll, describe } from 'vitest'
import { claimStoreContract, intentStoreContract, type StoreSubject } from './contract.js'
import { type Connected, connect, redisSubject } from './helpers.js'
import { describeWithRedis } from './redis-server.js'

function memorySubject(): StoreSubject {
  const clock = createTestClock()
  const claims = new MemoryClaimStore({ clock })
  const intents = new MemoryIntentStore()
  return {
    claims: () => claims,
    intents: () => intents,
    holdMs: 30_000,
    async pass(ms, until) {
      clock.advance(ms)
      if (!(await until())) throw new Error(`still not true after the test clock moved ${ms} ms`)
    },
  }
}

describe('core MemoryClaimStore and MemoryIntentStore', () => {
  let subject: StoreSubject
  beforeAll(() => {
    subject = memorySubject()
  })
  claimStoreContract(() => subject)
  intentStoreContract(() => subject)
})

for (const major of [6, 5] as const) {
  describeWithRedis(`RedisClaimStore and RedisIntentStore on node-redis ${major}, 3 connections`, (server) => {
    let clients: Connected[] = []
    let subject: StoreSubject
    beforeAll(async () => {
      clients = await Promise.all([1, 2, 3].map(() => connect(server().url, major)))
      subject = redisSubject(clients, `contract-v${major}:`)
    })
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.close()))
    })
    claimStoreContract(() => subject)
    intentStoreContract(() => subject)
  })
}
