/**
 * Resources made from rows: each operation row of a table becomes one method of a resource class,
 * typed from the row (its params schema, its place for the argument, its decoder), so adding an
 * endpoint is adding its row. The method's documentation is the row's JSDoc in the table.
 */

import type { z } from 'zod'
import type { ApiPromise } from '../api-promise.js'
import type { OperationInput, OperationOptions, ResultOf } from './call-input.js'
import type { Query } from './encode.js'
import type { Operation } from './operation.js'
import type { OperationClient } from './operation-client.js'
import type { ResponseSchema } from './response-schema.js'

/** A row of any client: what a table of one resource holds. */
// biome-ignore lint/suspicious/noExplicitAny: a table row is checked by its own `defineOperation`; here any context fits.
export type AnyOperation = Operation<any, any, unknown, string, boolean>

/** The single path variable of a template, e.g. `id` of `/api/catalog/{id}`. */
type HasPathVariable<T> = T extends `${string}{${string}}${string}` ? true : false

/** The path value a row's method takes first, when its template names one variable. */
type PathArgument<Path> = HasPathVariable<Path> extends true ? [pathValue: string | number] : []

/** What a row's method takes after its path value: the body (typed by the schema's input), an optional open query, or nothing. */
type BodyArgument<S extends z.core.$ZodType, Q> = [S] extends [never]
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
export type EndpointMethod<R> = <S extends ResponseSchema | undefined = undefined>(
  ...args: [...EndpointArgs<R>, options?: OperationOptions<S>]
) => ApiPromise<ResultOf<S, EndpointResult<R>>>

/** The methods of a table of rows, named and documented as the table's members. */
export type EndpointMethods<Rows> = { readonly [K in keyof Rows]: EndpointMethod<Rows[K]> }

/** The class `resource(rows)` returns: made by the client with its engine. */
export type ResourceClass<Ctx, Rows, Methods = EndpointMethods<Rows>> = new (ops: OperationClient<Ctx>) => Methods

/** Whether `T` is `any` (which would pass any assignability check). */
type IsAny<T> = 0 extends 1 & T ? true : false

/** Each assignable to the other. */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

/** Strict identity, as the compiler compares two declarations (`any` is only `any`). */
type Identical<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false

/** The optional members of an object type. */
type OptionalKeys<T> = {
  [K in keyof T]-?: undefined extends T[K] ? (T extends Record<K, T[K]> ? never : K) : never
}[keyof T]

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never

/** Depth left, for the recursion of `DeepSame` (params are never deeper than a few levels). */
type Deeper = [never, 0, 1, 2, 3, 4, 5, 6]

/** Every member of union `A` has a member of `B` deeply the same. */
type Covers<A, B, D extends number> = (
  A extends unknown
    ? true extends (B extends unknown ? DeepSame<A, B, D> : never)
      ? true
      : false
    : never
) extends true
  ? true
  : false

/**
 * `A` and `B` are the same type as far as a caller can tell, at every depth: each assignable to the
 * other, with the same member names and the same optional members, `any` only where the other is
 * `any`, and each union member matched by one of the other's. An interface and the object type it
 * writes out are the same; a narrower, wider or `any` member anywhere is not.
 */
export type DeepSame<A, B, D extends number = 7> = [D] extends [never]
  ? Mutual<A, B>
  : IsAny<A> extends true
    ? IsAny<B>
    : IsAny<B> extends true
      ? false
      : Mutual<A, B> extends false
        ? false
        : true extends IsUnion<A> | IsUnion<B>
          ? [
              Covers<Exclude<A, boolean>, Exclude<B, boolean>, D>,
              Covers<Exclude<B, boolean>, Exclude<A, boolean>, D>,
            ] extends [true, true]
            ? true
            : false
          : [A] extends [readonly unknown[]]
            ? [B] extends [readonly unknown[]]
              ? DeepSameElements<A, B, D>
              : false
            : [A] extends [object]
              ? Mutual<keyof A, keyof B> extends false
                ? false
                : Mutual<OptionalKeys<A>, OptionalKeys<B>> extends false
                  ? false
                  : { [K in keyof A]-?: DeepSame<A[K], B[K & keyof B], Deeper[D]> }[keyof A] extends true
                    ? true
                    : false
              : true

/** Two tuples (or arrays) element by element. */
type DeepSameElements<A extends readonly unknown[], B extends readonly unknown[], D extends number> =
  Mutual<A['length'], B['length']> extends false
    ? false
    : // An optional element maps to `true | undefined`.
      { [I in keyof A]: DeepSame<A[I], B[I & keyof B], Deeper[D]> }[number] extends true | undefined
      ? true
      : false

/**
 * A method as a service's public interface writes it: the plain call, then the call with a `schema`.
 * `{ (...): A; (...): B }` matches the last two signatures of an overloaded method, in order.
 */
type PublicSignatures<F> = F extends {
  (...args: infer Plain): unknown
  (...args: infer _Typed): unknown
}
  ? Plain
  : never

/** The arguments a plain call takes before its options, in the places `Row` has them. */
type LeadOf<Plain, RowArgs extends unknown[]> = { [I in keyof RowArgs]: Plain[I & keyof Plain] }

/**
 * The method a row is, declared with `Lead` for its arguments: the plain call resolving with the
 * row's result, then the call with a `schema` resolving with the schema's output.
 */
interface PublicMethod<Lead extends unknown[], Result> {
  (...args: [...Lead, options?: OperationOptions]): ApiPromise<Result>
  <T>(...args: [...Lead, options: OperationOptions<ResponseSchema<T>>]): ApiPromise<T>
}

/**
 * Whether a public method declares exactly its row's call: a required member with exactly the two
 * signatures of `PublicMethod` (nothing `any`, no other overload, the row's result), whose
 * arguments are deeply the row's (path value, params type, open query).
 */
type DeclaresRow<F, R> = undefined extends F
  ? false
  : LeadOf<PublicSignatures<F>, EndpointArgs<R>> extends infer Lead extends unknown[]
    ? DeepSame<Lead, EndpointArgs<R>> extends true
      ? Identical<F, PublicMethod<Lead, EndpointResult<R>>>
      : false
    : false

declare const declaredOtherwise: unique symbol
/** What the compile error names: the rows declared otherwise. No value has this type, so nothing silences the check. */
interface RowsDeclaredOtherwise<Rows> {
  readonly [declaredOtherwise]: Rows
}

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

/** One `EndpointExamples` per group of a service's `ENDPOINTS`: a missing group or row is a type error. */
export type ServiceExamples<Endpoints, Setup> = {
  readonly [G in keyof Endpoints]: EndpointExamples<Endpoints[G], Setup>
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
      : [rowsDeclaredOtherwise: RowsDeclaredOtherwise<UndeclaredRows<Methods, Rows>>]
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
