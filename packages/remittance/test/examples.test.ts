/**
 * Every example of `src/testing/examples.ts` succeeds on the remittance simulator: each row's sample
 * call, made through the real client on loopback, resolves (the endpoint checklist runs them).
 */

import { describe, expect, it } from 'vitest'
import { ENDPOINTS } from '../src/endpoints.js'
import { EXAMPLES } from '../src/testing/examples.js'
import { setup } from './helpers.js'

type AnyMethod = (...args: unknown[]) => Promise<unknown>

const cases = Object.entries(ENDPOINTS).flatMap(([group, rows]) =>
  Object.keys(rows).map((method) => [group as keyof typeof ENDPOINTS, method] as const),
)

describe('every endpoint example succeeds on the simulator', () => {
  it('has one example per row, and no other', () => {
    for (const [group, rows] of Object.entries(ENDPOINTS)) {
      expect(Object.keys(EXAMPLES[group as keyof typeof ENDPOINTS]).sort()).toEqual(Object.keys(rows).sort())
    }
  })

  it.each(cases)('%s.%s', async (group, method) => {
    const { remit, server } = await setup()
    const examples = EXAMPLES[group] as Record<string, (setup: { client: typeof remit }) => unknown>
    const args = (await examples[method]?.({ client: remit })) as unknown[]
    const resource = remit[group] as unknown as Record<string, AnyMethod>
    const call = resource[method] as AnyMethod
    const { data, response } = await (
      call.call(resource, ...args) as ReturnType<typeof remit.lookup.banks>
    ).withResponse()
    expect(response.status).toBeLessThan(300)
    expect(data).not.toBeUndefined()
    const row = (ENDPOINTS[group] as Record<string, { method: string }>)[method]
    expect(server.requests.at(-1)?.method).toBe(row?.method)
  })
})
