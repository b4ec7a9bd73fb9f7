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

/** The path value a row's method takes first, when its template names one variable. */
type PathArgument<Path> = HasPathVariable<Path> extends true ? [pathValue: string | number] : []

/** What a row's method takes after its path value: the body (typed by the schema's input), an optional open query, or nothing. */
type BodyArgument<S extends z.ZodType, Q> = [S] extends [never]
  ? Q extends true
    ? [query?: Query]
    : []
  : [params: z.input<S>]

/**
 * What a row's method takes before its options, in the order `rowArguments` gives: the path value
 * (a template with one variable), then the body (a row with a params schema) or an optional open
 * query (`query: true`); any of them, both, or nothing.
 */
export type EndpointArgs<R> =
  R extends Operation<infer _Ctx, infer S, infer _Result, infer Path, infer Q>
    ? [...PathArgument<Path>, ...BodyArgument<S, Q>]
    : never

/** The result a row's decoder gives (what the method resolves with when no `schema` is passed). */
export type EndpointResult<R> = R extends Operation<infer _Ctx, infer _S, infer Result> ? Result : unknown

/** The body a row's method takes (the input of its params schema). */
export type EndpointParams<R> =
  R extends Operation<infer _Ctx, infer S> ? ([S] extends [never] ? never : z.input<S>) : never

/** The method a row becomes: its argument, then the options of every call (`schema` types the result). */
export type EndpointMethod<R> = <S extends AnswerSchema | undefined = undefined>(
  ...args: [...EndpointArgs<R>, options?: OperationOptions<S>]
) => ApiPromise<ResultOf<S, EndpointResult<R>>>

/** The methods of a table of rows, named and documented as the table's members. */
export type EndpointMethods<Rows> = { readonly [K in keyof Rows]: EndpointMethod<Rows[K]> }

/** The class `resource(rows)` returns: made by the client with its engine. */
export type ResourceClass<Ctx, Rows, Methods = EndpointMethods<Rows>> = new (ops: OperationClient<Ctx>) => Methods

/**
 * `A` and `B` are the same type as far as a caller can tell: each assignable to the other, with the
 * same member names (an extra optional member is assignable both ways, and would go unseen).
 */
type Same<A, B> = [A, keyof A] extends [B, keyof B] ? ([B, keyof B] extends [A, keyof A] ? true : false) : false

/** `Same` for each argument of `B` and the one `A` has in its place (each argument's own members too). */
type EachSame<A, B extends readonly unknown[]> = {
  [I in keyof B]: Same<Exclude<A[I & keyof A], undefined>, Exclude<B[I], undefined>>
}

/** Strict identity (a type parameter left at its default). */
type Identical<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false

/**
 * A method as a service's public interface writes it: the plain call, then the call with a `schema`.
 * `{ (...): A; (...): B }` matches the last two signatures of an overloaded method, in order.
 */
type PublicSignatures<F> = F extends {
  (...args: infer Plain): infer Answer
  (...args: infer Typed): unknown
}
  ? { plain: Plain; answer: Answer; typed: Typed }
  : never

/** The `schema` overload of a method whose plain call takes `Lead` before its options. */
type TypedCall<Lead extends unknown[]> = <T>(
  ...args: [...Lead, options: OperationOptions<AnswerSchema<T>>]
) => ApiPromise<T>

/**
 * Whether a public method declares exactly its row's call: the plain signature
 * `(…arguments, options?: OperationOptions) => ApiPromise<Result>` with the row's arguments and
 * result, then the typed one `<T>(…arguments, options: OperationOptions<AnswerSchema<T>>) => ApiPromise<T>`.
 */
type DeclaresRow<F, R> =
  PublicSignatures<F> extends { plain: infer Plain; answer: infer Answer; typed: infer Typed }
    ? Same<Plain, [...EndpointArgs<R>, options?: OperationOptions]> extends true
      ? EachSame<Plain, EndpointArgs<R>> extends readonly (true | undefined)[]
        ? Same<Answer, ApiPromise<EndpointResult<R>>> extends true
          ? Same<Typed, Parameters<TypedCall<EndpointArgs<R>>>>
          : false
        : false
      : false
    : false

/**
 * The rows a public interface declares differently from the table (or leaves out): `never` when
 * every row's method is declared as its row makes it. Extra members of the interface (methods that
 * combine rows) are the resource class's to implement.
 */
export type UndeclaredRows<Methods, Rows> = {
  [K in keyof Rows]: K extends keyof Methods ? (DeclaresRow<Methods[K], Rows[K]> extends true ? never : K) : K
}[keyof Rows]

/**
 * One sample call of each row, for the package's endpoint checklist: its argument list, made from a
 * `Setup` the package's test kit gives (a client on its simulator, to create what the call needs).
 */
export type EndpointExamples<Rows, Setup> = {
  readonly [K in keyof Rows]: (setup: Setup) => EndpointArgs<Rows[K]> | Promise<EndpointArgs<Rows[K]>>
}

/** Where a row's method takes one of its arguments. */
export type RowArgument = 'body' | 'query' | { readonly path: string }

/**
 * The rule of a row's arguments, the one its method, the endpoint checklist and the property suite
 * all read: the path value first (a template with one `{variable}`), then the body (a row with a
 * params schema) or the open query (`query: true`). The method's options come after them.
 */
export function rowArguments(row: AnyOperation): readonly RowArgument[] {
  const template = typeof row.path === 'string' ? row.path : ''
  const variable = /\{(\w+)\}/.exec(template)?.[1]
  const places: RowArgument[] = variable === undefined ? [] : [{ path: variable }]
  if (row.params !== undefined) places.push('body')
  else if (row.query) places.push('query')
  return places
}

/** The engine of each resource instance (kept off the instance: nothing of it shows in `inspect` or JSON). */
const ENGINES = new WeakMap<object, OperationClient<unknown>>()

/**
 * A resource class with one method per row of `rows`: `method(arg?, options?)` checks the argument
 * with the row, sends it, and reads the answer, all through the client's engine. Extend it for
 * methods that combine rows (the card's `captureIfPending`).
 */
export function resource<Ctx, Rows extends Readonly<Record<string, AnyOperation>>, Methods = EndpointMethods<Rows>>(
  rows: Rows,
  // A public interface that declares a row otherwise than its row makes it fails to compile here,
  // naming the row: the interface is what merchants read, the row what runs.
  ...undeclared: [UndeclaredRows<Methods, Rows>] extends [never]
    ? []
    : Identical<Methods, EndpointMethods<Rows>> extends true
      ? []
      : [rowsDeclaredOtherwise: UndeclaredRows<Methods, Rows>]
): ResourceClass<Ctx, Rows, Pick<Methods, keyof Rows & keyof Methods>> {
  void undeclared
  class Resource {
    constructor(ops: OperationClient<Ctx>) {
      ENGINES.set(this, ops as OperationClient<unknown>)
    }
  }
  for (const [method, row] of Object.entries(rows)) {
    const places = rowArguments(row)
    const call = function (this: object, ...args: unknown[]) {
      const engine = ENGINES.get(this)
      if (engine === undefined) throw new TypeError(`${row.name} must be called on its resource`)
      return engine.call(row, inputOf(places, args), args[places.length] as OperationOptions<undefined>)
    }
    Object.defineProperty(call, 'name', { value: method })
    Object.defineProperty(Resource.prototype, method, { value: call, writable: true, configurable: true })
  }
  return Resource as unknown as ResourceClass<Ctx, Rows, Pick<Methods, keyof Rows & keyof Methods>>
}

function inputOf(places: readonly RowArgument[], args: readonly unknown[]): OperationInput {
  const input: { body?: unknown; query?: unknown; path?: Record<string, unknown> } = {}
  for (let i = 0; i < places.length; i++) {
    const place = places[i] as RowArgument
    if (place === 'body') input.body = args[i]
    else if (place === 'query') input.query = args[i]
    else input.path = { [place.path]: args[i] }
  }
  return input
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
