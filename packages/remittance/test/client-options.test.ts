/**
 * A bad option of `new Remittance(...)` is an options error of the client, as the card gateway's is:
 * `RequestValidationError` with `stage: 'options'`, named `Remittance`, worded "invalid client
 * options" (no request exists yet to be "not sent"), and the client never reaches the service.
 */

import { describe, expect, it, onTestFinished } from 'vitest'
import { Remittance, type RemittanceOptions, RequestValidationError } from '../src/index.js'
import { startRemittanceSimulator } from '../src/testing/index.js'

describe('bad client options read as options errors of Remittance', () => {
  it.each([
    ['an ftp: baseUrl', { baseUrl: 'ftp://x' }, 'baseUrl: must use https:, got ftp:'],
    ['a negative timeout', { timeout: -1 }, 'timeout: must be a finite number >= 0'],
    ['a timeout that is not a number', { timeout: '5s' }, 'timeout: must be a finite number >= 0'],
    ['a zero totalTimeout', { totalTimeout: 0 }, 'totalTimeout: must be above 0 ms'],
    ['maxSockets 0', { maxSockets: 0 }, 'maxSockets: must be a whole number >= 1'],
    [
      'sleDecimals 2.5',
      { platformDefaults: { sleDecimals: 2.5 } },
      'platformDefaults.sleDecimals: must be a whole number from 0 to 20',
    ],
    ['platformDefaults that is not an object', { platformDefaults: 'two' }, 'platformDefaults: must be an object'],
  ] as const)('%s', async (_name, bad, issue) => {
    const sim = await startRemittanceSimulator()
    onTestFinished(() => sim.close())
    const options = { ...sim.clientOptions, ...bad } as unknown as RemittanceOptions
    let error: unknown
    try {
      new Remittance(options)
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(RequestValidationError)
    const refused = error as RequestValidationError
    expect(refused.message).toBe(`Remittance: invalid client options. ${issue}`)
    expect(refused.stage).toBe('options')
    expect(refused.operation).toBe('Remittance')
    expect(sim.server.requests).toHaveLength(0)
  })
})
