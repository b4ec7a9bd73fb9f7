import type pg from 'pg'
import { storeConformance } from '../../../tests/support/store-conformance.js'
import { freshSchema, postgresSubject } from './helpers.js'
import { POSTGRES_BIN, REQUIRE_POSTGRES, startPostgres } from './postgres-server.js'

storeConformance([
  {
    name: 'PostgresClaimStore and PostgresIntentStore, 3 pools',
    unavailable: POSTGRES_BIN
      ? undefined
      : 'no PostgreSQL in /usr/lib/postgresql/*/bin (apt-get install -y postgresql)',
    required: REQUIRE_POSTGRES,
    async setup() {
      const server = await startPostgres()
      const pools: pg.Pool[] = [1, 2, 3].map(() => server.pool({ max: 4 }))
      const schema = await freshSchema(pools[0] as pg.Pool, 'conformance')
      return {
        subject: postgresSubject(pools, schema),
        async teardown() {
          await Promise.all(pools.map((p) => p.end()))
          await server.stop()
        },
      }
    },
  },
])
