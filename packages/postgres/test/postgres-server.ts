/**
 * `describeWithPostgres`: the test files' PostgreSQL server, started before a file's tests and stopped
 * after them (the process itself, postgres-process.ts, is shared with bench/stores.ts).
 */

import { afterAll, beforeAll, describe, it } from 'vitest'
import { MISSING, POSTGRES_BIN, type PostgresServer, REQUIRE_POSTGRES, startPostgres } from './postgres-process.js'

export * from './postgres-process.js'

/**
 * `describe` with a PostgreSQL server started before the file's tests and stopped after them. The
 * server is passed as a getter (it exists only once `beforeAll` ran).
 */
export function describeWithPostgres(name: string, body: (server: () => PostgresServer) => void): void {
  if (!POSTGRES_BIN) {
    if (REQUIRE_POSTGRES) {
      describe(name, () => {
        it('needs PostgreSQL (PAYWIRE_REQUIRE_POSTGRES=1 forbids skipping)', () => {
          throw new Error(`PAYWIRE_REQUIRE_POSTGRES=1 but ${MISSING}`)
        })
      })
    } else {
      console.warn(`@paywire/postgres: "${name}" skipped: ${MISSING}`)
      describe.skip(`${name} [skipped: ${MISSING}; CI sets PAYWIRE_REQUIRE_POSTGRES=1 to fail instead]`, () => {
        body(() => {
          throw new Error(MISSING)
        })
      })
    }
    return
  }
  describe(name, () => {
    let server: PostgresServer | undefined
    beforeAll(async () => {
      server = await startPostgres()
    }, 30_000)
    afterAll(async () => {
      await server?.stop()
    })
    body(() => {
      if (!server) throw new Error('the PostgreSQL server of this file did not start')
      return server
    })
  })
}
