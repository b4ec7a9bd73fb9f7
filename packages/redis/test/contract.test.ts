import { storeConformance } from './contract.js'
import { type Connected, connect, redisSubject } from './helpers.js'
import { REDIS_SERVER, REQUIRE_REDIS, startRedisServer } from './redis-server.js'

const MISSING = 'no redis-server binary (apt-get install -y redis-server)'

/** Redis through node-redis `major`, three connections (three instances of a service) on one server. */
const redis = (major: 5 | 6) => ({
  name: `RedisClaimStore and RedisIntentStore, node-redis ${major}, 3 connections`,
  unavailable: REDIS_SERVER ? undefined : MISSING,
  required: REQUIRE_REDIS,
  async setup() {
    const server = await startRedisServer()
    const clients: Connected[] = await Promise.all([1, 2, 3].map(() => connect(server.url, major)))
    return {
      subject: redisSubject(clients, `contract-v${major}:`),
      async teardown() {
        await Promise.all(clients.map((c) => c.close()))
        await server.stop()
      },
    }
  },
})

storeConformance([redis(6), redis(5)])
