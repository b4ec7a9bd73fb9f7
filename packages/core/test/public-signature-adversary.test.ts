// biome-ignore-all lint/suspicious/noExplicitAny: `any` in a public signature is what these tests plant
/**
 * Adversarial type tests of `resource<Ctx, Rows, Methods>(rows)` (an independent review's): public
 * interfaces that declare a row otherwise than the row makes it, each a declaration a merchant would
 * see wrongly typed. Every `// @ts-expect-error` must be used: the type check (CI's typecheck) fails
 * with TS2578 on any wrong declaration `resource` lets through. The first 17 were let through by
 * the first version of the check (mutual assignability one level deep).
 */

import { describe, expectTypeOf, it } from 'vitest'
import type { z } from 'zod'
import type { ApiPromise } from '../src/api-promise.js'
import type { OperationOptions } from '../src/operations/call-input.js'
import type { Query } from '../src/operations/encode.js'
import type { Operation } from '../src/operations/operation.js'
import { resource, type UndeclaredRows } from '../src/operations/resource.js'
import type { ResponseSchema } from '../src/operations/response-schema.js'

type Card = z.ZodObject<{ number: z.ZodString; holder: z.ZodOptional<z.ZodString> }>
type Schema = z.ZodObject<{ reason: z.ZodString; note: z.ZodOptional<z.ZodString>; card: Card }>
interface Receipt {
  readonly id: string
  readonly status: 'ok' | 'failed'
  readonly detail?: { readonly code: string }
}
type Rows = {
  reverse: Operation<unknown, Schema, Receipt, '/things/{thingId}/reverse', false>
  search: Operation<unknown, never, Receipt[], '/things', true>
}
const rows = {} as Rows
type Typed<T> = OperationOptions<ResponseSchema<T>>
type Id = string | number
interface ReverseParams {
  reason: string
  note?: string | undefined
  card: { number: string; holder?: string | undefined }
}
/** The `search` row declared right, to isolate `reverse` in each case. */
interface Search {
  search(query?: Query, options?: OperationOptions): ApiPromise<Receipt[]>
  search<T>(query: Query | undefined, options: Typed<T>): ApiPromise<T>
}

describe('resource(): wrong declarations the first check let through, now refused', () => {
  it('the plain result', () => {
    interface AnyResult extends Search {
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<any>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error result `ApiPromise<any>`: merchants lose every result type
    resource<unknown, Rows, AnyResult>(rows)

    interface ExtraResultMember extends Search {
      reverse(
        thingId: Id,
        params: ReverseParams,
        options?: OperationOptions,
      ): ApiPromise<Receipt & { readonly refundId?: string }>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error result declares a member (`refundId`) the row never gives
    resource<unknown, Rows, ExtraResultMember>(rows)

    interface MissingResultMember extends Search {
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<Omit<Receipt, 'detail'>>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error result leaves out the optional member `detail` the row gives
    resource<unknown, Rows, MissingResultMember>(rows)

    interface NestedAnyResult extends Search {
      reverse(
        thingId: Id,
        params: ReverseParams,
        options?: OperationOptions,
      ): ApiPromise<{ readonly id: any; readonly status: 'ok' | 'failed'; readonly detail?: any }>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error result members typed `any`
    resource<unknown, Rows, NestedAnyResult>(rows)
  })

  it('the params, below the top level', () => {
    interface NestedMissing extends Search {
      reverse(
        thingId: Id,
        params: { reason: string; note?: string | undefined; card: { number: string } },
        options?: OperationOptions,
      ): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error `card.holder` left out: a merchant's `{ card: { number, holder } }` literal is refused
    resource<unknown, Rows, NestedMissing>(rows)

    interface NestedExtra extends Search {
      reverse(
        thingId: Id,
        params: { reason: string; note?: string | undefined; card: { number: string; holder?: string; cvv?: string } },
        options?: OperationOptions,
      ): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error `card.cvv` is a member the row does not have (strict params refuse it at run time)
    resource<unknown, Rows, NestedExtra>(rows)

    interface NestedAny extends Search {
      reverse(
        thingId: Id,
        params: { reason: string; note?: string | undefined; card: any },
        options?: OperationOptions,
      ): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error `card: any`
    resource<unknown, Rows, NestedAny>(rows)
  })

  it('the schema overload', () => {
    interface NotGeneric extends Search {
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
      reverse(thingId: Id, params: ReverseParams, options: OperationOptions<ResponseSchema>): ApiPromise<unknown>
    }
    // @ts-expect-error the schema overload is not generic: `schema` no longer types the result (unknown)
    resource<unknown, Rows, NotGeneric>(rows)

    interface TypedAny extends Search {
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<any>
    }
    // @ts-expect-error the schema overload resolves with `any`, not the schema's output
    resource<unknown, Rows, TypedAny>(rows)

    interface TypedRowResult extends Search {
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<Receipt>
    }
    // @ts-expect-error the schema overload resolves with the row's result, not the schema's output
    resource<unknown, Rows, TypedRowResult>(rows)

    interface TypedWiderParams extends Search {
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams & { extra?: string }, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error the schema overload's params have a member (`extra`) the row does not (EachSame checks only the plain one)
    resource<unknown, Rows, TypedWiderParams>(rows)

    interface TypedAnyArgs extends Search {
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
      reverse<T>(thingId: any, params: any, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error the schema overload takes `any` path value and params
    resource<unknown, Rows, TypedAnyArgs>(rows)
  })

  it('the options, the overload set, the member itself', () => {
    interface AnyOptions extends Search {
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions<any>): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error `OperationOptions<any>` on the plain call: a `schema` call picks it and resolves with `Receipt`
    resource<unknown, Rows, AnyOptions>(rows)

    interface LeadingOverload extends Search {
      reverse(thingId: Id, params: any): ApiPromise<any>
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error a third overload before the two: only the last two are read, this one is `any`
    resource<unknown, Rows, LeadingOverload>(rows)

    interface OptionalMethod extends Search {
      reverse?(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
      reverse?<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error an optional method: `things.reverse(…)` is "possibly undefined" to a merchant
    resource<unknown, Rows, OptionalMethod>(rows)

    interface AnyQuery {
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
      search(query?: Record<string, any>, options?: OperationOptions): ApiPromise<Receipt[]>
      search<T>(query: Record<string, any> | undefined, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error the open query as `Record<string, any>`: objects and functions pass as query values
    resource<unknown, Rows, AnyQuery>(rows)
  })
})

describe('resource(): the interface itself', () => {
  it('refuses an interface that is `any` or an open record', () => {
    // @ts-expect-error `Methods = any`: every method is `any` to a merchant
    resource<unknown, Rows, any>(rows)
    // @ts-expect-error an index signature of `any` methods
    resource<unknown, Rows, Record<string, any>>(rows)
  })
  it('cannot be silenced by passing the rows it names', () => {
    interface Wrong extends Search {
      reverse(thingId: string, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
      reverse<T>(thingId: string, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    // @ts-expect-error the check's own argument, given, silences it
    resource<unknown, Rows, Wrong>(rows, 'reverse')
  })
})

describe('resource(): declarations the check refuses (held)', () => {
  it('refuses these', () => {
    interface PathString extends Search {
      reverse(thingId: string, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
      reverse<T>(thingId: string, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    expectTypeOf<UndeclaredRows<PathString, Rows>>().toEqualTypeOf<'reverse'>()
    interface PathAny extends Search {
      reverse(thingId: any, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    expectTypeOf<UndeclaredRows<PathAny, Rows>>().toEqualTypeOf<'reverse'>()
    interface ParamsAny extends Search {
      reverse(thingId: Id, params: any, options?: OperationOptions): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    expectTypeOf<UndeclaredRows<ParamsAny, Rows>>().toEqualTypeOf<'reverse'>()
    interface NarrowNested extends Search {
      reverse(
        thingId: Id,
        params: { reason: string; note?: string | undefined; card: { number: string; holder: string } },
        options?: OperationOptions,
      ): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    expectTypeOf<UndeclaredRows<NarrowNested, Rows>>().toEqualTypeOf<'reverse'>()
    interface OptionalVsUndefined extends Search {
      reverse(
        thingId: Id,
        params: { reason: string; note: string | undefined; card: ReverseParams['card'] },
        options?: OperationOptions,
      ): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    expectTypeOf<UndeclaredRows<OptionalVsUndefined, Rows>>().toEqualTypeOf<'reverse'>()
    interface UnknownResult extends Search {
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<unknown>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    expectTypeOf<UndeclaredRows<UnknownResult, Rows>>().toEqualTypeOf<'reverse'>()
    interface SuperResult extends Search {
      reverse(
        thingId: Id,
        params: ReverseParams,
        options?: OperationOptions,
      ): ApiPromise<{ readonly id: string; readonly status: string }>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    expectTypeOf<UndeclaredRows<SuperResult, Rows>>().toEqualTypeOf<'reverse'>()
    interface PromiseResult extends Search {
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): Promise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    expectTypeOf<UndeclaredRows<PromiseResult, Rows>>().toEqualTypeOf<'reverse'>()
    interface NoSchemaOverload extends Search {
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
    }
    expectTypeOf<UndeclaredRows<NoSchemaOverload, Rows>>().toEqualTypeOf<'reverse'>()
    interface WrongOrder extends Search {
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
    }
    expectTypeOf<UndeclaredRows<WrongOrder, Rows>>().toEqualTypeOf<'reverse'>()
    interface OptionalParams extends Search {
      reverse(thingId: Id, params?: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    expectTypeOf<UndeclaredRows<OptionalParams, Rows>>().toEqualTypeOf<'reverse'>()
    interface RequiredQuery {
      reverse(thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
      search(query: Query, options?: OperationOptions): ApiPromise<Receipt[]>
      search<T>(query: Query | undefined, options: Typed<T>): ApiPromise<T>
    }
    expectTypeOf<UndeclaredRows<RequiredQuery, Rows>>().toEqualTypeOf<'search'>()
    interface OptionsAsSchemaUnion extends Search {
      reverse(
        thingId: Id,
        params: ReverseParams,
        options?: OperationOptions<ResponseSchema | undefined>,
      ): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    expectTypeOf<UndeclaredRows<OptionsAsSchemaUnion, Rows>>().toEqualTypeOf<'reverse'>()
  })

  it('accepts these harmless spellings', () => {
    // A method declared as a property of an overloaded function type: the same calls.
    interface AsProperty extends Search {
      readonly reverse: {
        (thingId: Id, params: ReverseParams, options?: OperationOptions): ApiPromise<Receipt>
        <T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
      }
    }
    expectTypeOf<UndeclaredRows<AsProperty, Rows>>().toEqualTypeOf<never>()
    // Two overloads that spell the params differently are refused, though a caller could not tell:
    // the plain and the typed call take one params type.
    interface ReadonlyMember extends Search {
      reverse(
        thingId: Id,
        params: { readonly reason: string; note?: string | undefined; card: ReverseParams['card'] },
        options?: OperationOptions,
      ): ApiPromise<Receipt>
      reverse<T>(thingId: Id, params: ReverseParams, options: Typed<T>): ApiPromise<T>
    }
    expectTypeOf<UndeclaredRows<ReadonlyMember, Rows>>().toEqualTypeOf<'reverse'>()
  })
})
