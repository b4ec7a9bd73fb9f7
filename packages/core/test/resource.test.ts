/**
 * `resource(rows)` on its own: each row of a table becomes one method of the class, which hands the
 * engine the row and its argument in the place the row declares (body, query, path value, none),
 * and the caller's options untouched. The engine stays off the instance.
 */

import { inspect } from 'node:util'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import type { ApiPromise } from '../src/api-promise.js'
import type { OperationOptions } from '../src/operations/call-input.js'
import type { Query } from '../src/operations/encode.js'
import type { Operation } from '../src/operations/operation.js'
import type { OperationClient } from '../src/operations/operation-client.js'
import {
  type AnyOperation,
  type EndpointArgs,
  type EndpointParams,
  reconcileKeysOf,
  resource,
  rowArguments,
  type UndeclaredRows,
} from '../src/operations/resource.js'
import type { ResponseSchema } from '../src/operations/response-schema.js'

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

describe('rowArguments: the one rule of a row’s arguments', () => {
  const reverse = row({
    name: 'things.reverse',
    path: '/things/{thingId}/reverse',
    params: z.object({ reason: z.string() }),
  })

  it('the path value first, then the body or the query, then nothing', () => {
    expect(rowArguments(reverse)).toEqual([{ path: 'thingId' }, 'body'])
    expect(rowArguments(ROWS.create)).toEqual(['body'])
    expect(rowArguments(ROWS.search)).toEqual(['query'])
    expect(rowArguments(ROWS.get)).toEqual([{ path: 'thingId' }])
    expect(rowArguments(ROWS.list)).toEqual([])
    // A path made from the client's settings names no variable the caller fills.
    expect(rowArguments(row({ name: 'things.conf', path: (() => '/conf') as never }))).toEqual([])
  })

  it('a row with a path value and a body takes both, then the options', () => {
    const Reversing = resource<unknown, { reverse: typeof reverse }>({ reverse })
    const { engine, calls } = recordingEngine()
    const options = { idempotencyKey: 'k-1' }
    // `row()` types its rows loosely; the method's type is checked below, on a typed row.
    const reversing = new Reversing(engine) as unknown as { reverse(...args: unknown[]): unknown }
    reversing.reverse('T-9', { reason: 'duplicate' }, options)
    expect(calls).toEqual([[reverse, { path: { thingId: 'T-9' }, body: { reason: 'duplicate' } }, options]])
  })

  it('its method is typed the same way: path value, body, options', () => {
    type Schema = z.ZodObject<{ reason: z.ZodString }>
    type Reverse = Operation<unknown, Schema, unknown, '/things/{thingId}/reverse', false>
    expectTypeOf<EndpointArgs<Reverse>>().toEqualTypeOf<[pathValue: string | number, params: { reason: string }]>()
    type Search = Operation<unknown, never, unknown, '/things/{thingId}/parts', true>
    expectTypeOf<EndpointArgs<Search>>().toEqualTypeOf<[pathValue: string | number, query?: Query]>()
    expectTypeOf<EndpointParams<Reverse>>().toEqualTypeOf<{ reason: string }>()
  })

  describe('a public interface is checked against its rows', () => {
    type Schema = z.ZodObject<{ reason: z.ZodString; note: z.ZodOptional<z.ZodString> }>
    type Rows = {
      reverse: Operation<unknown, Schema, Receipt, '/things/{thingId}/reverse', false>
      search: Operation<unknown, never, Receipt[], '/things', true>
    }
    interface Receipt {
      readonly id: string
    }
    interface ReverseParams {
      reason: string
      note?: string | undefined
    }
    const rows = {} as Rows
    type Typed<T> = OperationOptions<ResponseSchema<T>>

    it('compiles when each row is declared as its row makes it (plain, then with a schema)', () => {
      interface Things {
        reverse(thingId: string | number, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
        reverse<T>(thingId: string | number, params: ReverseParams, options: Typed<T>): ApiPromise<T>
        search(query?: Query, options?: OperationOptions): ApiPromise<Receipt[]>
        search<T>(query: Query | undefined, options: Typed<T>): ApiPromise<T>
        /** A method that combines rows: the class implements it. */
        both(): Promise<void>
      }
      const Class = resource<unknown, Rows, Things>(rows)
      expectTypeOf<InstanceType<typeof Class>>().toEqualTypeOf<Pick<Things, 'reverse' | 'search'>>()
      expectTypeOf<UndeclaredRows<Things, Rows>>().toEqualTypeOf<never>()
    })

    it('names each row declared otherwise, and refuses to compile', () => {
      interface Wrong {
        // a member the row does not have
        reverse(
          thingId: string,
          params: ReverseParams & { extra?: string },
          options?: OperationOptions,
        ): ApiPromise<Receipt>
        reverse<T>(thingId: string, params: ReverseParams, options: Typed<T>): ApiPromise<T>
        // no `schema` overload
        search(query?: Query, options?: OperationOptions): ApiPromise<Receipt[]>
      }
      expectTypeOf<UndeclaredRows<Wrong, Rows>>().toEqualTypeOf<'reverse' | 'search'>()
      interface WrongResult {
        reverse(thingId: string | number, params: ReverseParams, options?: OperationOptions): ApiPromise<unknown>
        reverse<T>(thingId: string | number, params: ReverseParams, options: Typed<T>): ApiPromise<T>
      }
      // `search` is left out, `reverse` resolves with less than the row gives.
      expectTypeOf<UndeclaredRows<WrongResult, Rows>>().toEqualTypeOf<'reverse' | 'search'>()
      interface NoPath {
        reverse(params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
        reverse<T>(params: ReverseParams, options: Typed<T>): ApiPromise<T>
        search(query?: Query, options?: OperationOptions): ApiPromise<Receipt[]>
        search<T>(query: Query | undefined, options: Typed<T>): ApiPromise<T>
      }
      expectTypeOf<UndeclaredRows<NoPath, Rows>>().toEqualTypeOf<'reverse'>()
      // @ts-expect-error the interface declares `reverse` otherwise than its row: resource() does not compile
      resource<unknown, Rows, NoPath>(rows)
    })
  })
})
