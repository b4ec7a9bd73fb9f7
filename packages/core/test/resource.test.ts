/**
 * `resource(rows)` on its own: each row of a table becomes one method of the class, which hands the
 * engine the row and its argument in the place the row declares (body, query, path value, none),
 * and the caller's options untouched. The engine stays off the instance.
 */

import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { OperationClient } from '../src/operation-client.js'
import { type AnyOperation, reconcileKeysOf, resource } from '../src/resource.js'

const row = (fields: Partial<AnyOperation> & { name: string }): AnyOperation =>
  ({ method: 'POST', path: '/x', ...fields }) as AnyOperation

const ROWS = {
  create: row({ name: 'things.create', params: z.object({ a: z.string() }) }),
  search: row({ name: 'things.search', method: 'GET', path: '/things', query: true }),
  get: row({ name: 'things.get', method: 'GET', path: '/things/{thingId}' }),
  list: row({ name: 'things.list', method: 'GET', path: '/things' }),
} as const

/** An engine that records what each method handed it. */
function recordingEngine() {
  const calls: unknown[][] = []
  const engine = {
    call: (...args: unknown[]) => {
      calls.push(args)
      return 'sent'
    },
  } as unknown as OperationClient<unknown>
  return { engine, calls }
}

describe('resource(rows)', () => {
  const Things = resource<unknown, typeof ROWS>(ROWS)

  it('makes one method per row, named after its key, each handing the engine its row, argument and options', () => {
    const { engine, calls } = recordingEngine()
    const things = new Things(engine)
    const options = { timeout: 5 }
    expect(things.create({ a: 'x' }, options)).toBe('sent')
    things.search({ q: 'y' }, options)
    things.get(42, options)
    things.list(options)
    expect(calls).toEqual([
      [ROWS.create, { body: { a: 'x' } }, options],
      [ROWS.search, { query: { q: 'y' } }, options],
      [ROWS.get, { path: { thingId: 42 } }, options],
      [ROWS.list, {}, options],
    ])
    expect([things.create.name, things.get.name, things.list.name]).toEqual(['create', 'get', 'list'])
  })

  it('a method called off its resource is refused, naming the row', () => {
    const { engine } = recordingEngine()
    const { get } = new Things(engine)
    expect(() => (get as (v: number) => unknown)(1)).toThrow(new TypeError('things.get must be called on its resource'))
  })

  it('the engine is kept off the instance: nothing of it in JSON, inspect or its own keys', () => {
    const { engine } = recordingEngine()
    const things = new Things(engine)
    expect(Object.keys(things)).toEqual([])
    expect(JSON.stringify(things)).toBe('{}')
    expect(inspect(things)).not.toContain('call')
  })

  it('reconcileKeysOf lists the key kinds of each row that has a reconcile rule, across tables', () => {
    const withRule = row({ name: 'things.pay', reconcile: { keys: ['order_id'], of: () => undefined } as never })
    const keys = reconcileKeysOf(ROWS, { pay: withRule })
    expect(keys).toEqual({ 'things.pay': ['order_id'] })
    expect(Object.isFrozen(keys)).toBe(true)
  })
})
