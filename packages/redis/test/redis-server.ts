/**
 * `describeWithRedis`: the test files' Redis server, started before a file's tests and stopped
 * after them (the process itself, redis-process.ts, is shared with bench/stores.ts).
 */

import { afterAll, beforeAll, describe, it } from 'vitest'
import {
  MISSING,
  REDIS_SERVER,
  REQUIRE_REDIS,
  type RedisServer,
  type RedisServerOptions,
  startRedisServer,
} from './redis-process.js'

export * from './redis-process.js'

/**
 * `describe` with a redis-server started before the file's tests and stopped after them. The
 * server is passed as a getter (it exists only once `beforeAll` ran).
 */
export function describeWithRedis(
  name: string,
  body: (server: () => RedisServer) => void,
  options: RedisServerOptions = {},
): void {
  if (!REDIS_SERVER) {
    if (REQUIRE_REDIS) {
      describe(name, () => {
        it('needs redis-server (PAYWIRE_REQUIRE_REDIS=1 forbids skipping)', () => {
          throw new Error(`PAYWIRE_REQUIRE_REDIS=1 but ${MISSING}`)
        })
      })
    } else {
      console.warn(`@paywire/redis: "${name}" skipped: ${MISSING}`)
      describe.skip(`${name} [skipped: ${MISSING}; CI sets PAYWIRE_REQUIRE_REDIS=1 to fail instead]`, () => {
        body(() => {
          throw new Error(MISSING)
        })
      })
    }
    return
  }
  describe(name, () => {
    let server: RedisServer | undefined
    beforeAll(async () => {
      server = await startRedisServer(options)
    }, 20_000)
    afterAll(async () => {
      await server?.stop()
    })
    body(() => {
      if (!server) throw new Error('the redis-server of this file did not start')
      return server
    })
  })
}
