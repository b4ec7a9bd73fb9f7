/** Every endpoint example (`src/testing/examples.ts`) succeeds on the simulator, with one request of its own. */

import { describe, expect, it } from 'vitest'
import { ENDPOINTS } from '../src/endpoints.js'
import { CardGateway } from '../src/index.js'
import { EXAMPLES } from '../src/testing/examples.js'
import { startCardGatewaySimulator } from '../src/testing/index.js'

const rows = Object.entries(ENDPOINTS).flatMap(([group, table]) =>
  Object.entries(table).map(([method, row]) => ({ group, method, row })),
)

describe('endpoint examples on the simulator', () => {
  it('there is one example per row and one row per example', () => {
    const names = (tables: object) =>
      Object.entries(tables)
        .flatMap(([group, table]) => Object.keys(table).map((method) => `${group}.${method}`))
        .sort()
    expect(names(EXAMPLES)).toEqual(names(ENDPOINTS))
    expect(rows.map(({ row }) => row.name).sort()).toEqual(names(ENDPOINTS))
  })

  it.each(rows)('$group.$method: its example succeeds, with one request of the row', async ({ group, method, row }) => {
    const started = await startCardGatewaySimulator()
    const gw = new CardGateway(started.clientOptions)
    try {
      const example = (EXAMPLES as Record<string, Record<string, (setup: object) => unknown>>)[group]?.[method]
      const args = (await example?.({ gw, simulator: started.simulator })) as unknown[]
      const before = started.server.requests.length
      const resource = (gw as unknown as Record<string, Record<string, (...a: unknown[]) => Promise<unknown>>>)[group]
      const answer = await resource?.[method]?.(...args)
      const sent = started.server.requests.slice(before)
      expect(sent).toHaveLength(1)
      expect(sent[0]?.method).toBe(row.method)
      if (group === 's2s') {
        expect(sent[0]?.url).toBe('/post')
        // Every S2S answer of a successful example says so (CREDITVOID accepts, the outcome comes by callback).
        expect((answer as { result?: string }).result).toBe(method === 'creditVoid' ? 'ACCEPTED' : 'SUCCESS')
      }
      expect(answer).toBeDefined()
    } finally {
      await gw.close()
      await started.close()
    }
  })
})
