/**
 * Resources made from rows: each operation row of a table becomes one method of a resource class,
 * typed from the row (its params schema, its place for the argument, its decoder), so adding an
 * endpoint is adding its row. The method's documentation is the row's JSDoc in the table.
 */

import type { z } from 'zod'
import type { AnswerSchema } from './answer-schema.js'
import type { ApiPromise } from './api-promise.js'
import type { OperationInput, OperationOptions, ResultOf } from './call-input.js'
import type { Query } from './encode.js'
import type { Operation } from './operation.js'
import type { OperationClient } from './operation-client.js'

/** A row of any client: what a table of one resource holds. */
// biome-ignore lint/suspicious/noExplicitAny: a table row is checked by its own `defineOperation`; here any context fits.
export type AnyOperation = Operation<any, any, unknown, string, boolean>

/** The single path variable of a template, e.g. `id` of `/api/catalog/{id}`. */
type HasPathVariable<T> = T extends `${string}{${string}}${string}` ? true : false

/**
 * What a row's method takes before its options: the body (a row with a params schema, typed by the
 * schema's input), an optional open query (`query: true`), the one path variable, or nothing.
 */
export type EndpointArgs<R> =
  R extends Operation<infer _Ctx, infer S, infer _Result, infer Path, infer Q>
    ? [S] extends [never]
      ? Q extends true
        ? [query?: Query]
        : HasPathVariable<Path> extends true
          ? [pathValue: string | number]
          : []
      : [params: z.input<S>]
    : never

/** The result a row's decoder gives (what the method resolves with when no `schema` is passed). */
export type EndpointResult<R> = R extends Operation<infer _Ctx, infer _S, infer Result> ? Result : unknown

/** The body a row's method takes (the input of its params schema). */
export type EndpointParams<R> = EndpointArgs<R> extends [params: infer P] ? P : never

/** The method a row becomes: its argument, then the options of every call (`schema` types the result). */
export type EndpointMethod<R> = <S extends AnswerSchema | undefined = undefined>(
  ...args: [...EndpointArgs<R>, options?: OperationOptions<S>]
) => ApiPromise<ResultOf<S, EndpointResult<R>>>

/** The methods of a table of rows, named and documented as the table's members. */
export type EndpointMethods<Rows> = { readonly [K in keyof Rows]: EndpointMethod<Rows[K]> }

/** The class `resource(rows)` returns: made by the client with its engine. */
export type ResourceClass<Ctx, Rows> = new (ops: OperationClient<Ctx>) => EndpointMethods<Rows>

/**
 * One sample call of each row, for the package's endpoint checklist: its argument list, made from a
 * `Setup` the package's test kit gives (a client on its simulator, to create what the call needs).
 */
export type EndpointExamples<Rows, Setup> = {
  readonly [K in keyof Rows]: (setup: Setup) => EndpointArgs<Rows[K]> | Promise<EndpointArgs<Rows[K]>>
}

/** How a row takes its method's argument: decided once per row from its declaration. */
type ArgumentPlace = 'body' | 'query' | { readonly path: string } | 'none'

function argumentPlace(row: AnyOperation): ArgumentPlace {
  if (row.params !== undefined) return 'body'
  if (row.query) return 'query'
  const template = typeof row.path === 'string' ? row.path : ''
  const variable = /\{(\w+)\}/.exec(template)?.[1]
  return variable === undefined ? 'none' : { path: variable }
}

/** The engine of each resource instance (kept off the instance: nothing of it shows in `inspect` or JSON). */
const ENGINES = new WeakMap<object, OperationClient<unknown>>()

/**
 * A resource class with one method per row of `rows`: `method(arg?, options?)` checks the argument
 * with the row, sends it, and reads the answer, all through the client's engine. Extend it for
 * methods that combine rows (the card's `captureIfPending`).
 */
export function resource<Ctx, Rows extends Readonly<Record<string, AnyOperation>>>(
  rows: Rows,
): ResourceClass<Ctx, Rows> {
  class Resource {
    constructor(ops: OperationClient<Ctx>) {
      ENGINES.set(this, ops as OperationClient<unknown>)
    }
  }
  for (const [method, row] of Object.entries(rows)) {
    const place = argumentPlace(row)
    const call = function (this: object, ...args: unknown[]) {
      const engine = ENGINES.get(this)
      if (engine === undefined) throw new TypeError(`${row.name} must be called on its resource`)
      const [arg, options] = place === 'none' ? [undefined, args[0]] : args
      return engine.call(row, inputOf(place, arg), options as OperationOptions<undefined>)
    }
    Object.defineProperty(call, 'name', { value: method })
    Object.defineProperty(Resource.prototype, method, { value: call, writable: true, configurable: true })
  }
  return Resource as unknown as ResourceClass<Ctx, Rows>
}

function inputOf(place: ArgumentPlace, arg: unknown): OperationInput {
  if (place === 'body') return { body: arg }
  if (place === 'query') return { query: arg }
  if (place === 'none') return {}
  return { path: { [place.path]: arg } }
}

/** The key kinds reconciliation accepts for each operation, from the rows' `reconcile` rules. */
export function reconcileKeysOf(
  ...tables: readonly Readonly<Record<string, AnyOperation>>[]
): Readonly<Record<string, readonly string[]>> {
  const keys: Record<string, readonly string[]> = {}
  for (const table of tables) {
    for (const row of Object.values(table)) if (row.reconcile) keys[row.name] = row.reconcile.keys
  }
  return Object.freeze(keys)
}
