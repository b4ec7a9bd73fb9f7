/** Checkout (JSON): purchase, credit and status lookup — one row per operation with its hash inputs and retry policy. */

import {
  ApiPromise,
  type CallOptions,
  jsonBody,
  type RawResponse,
  RequestValidationError,
  type RetryPolicy,
  safe,
  validateParams,
  withinWindow,
} from '@paywire/core'
import { z } from 'zod'
import {
  type CardGatewayOperation,
  type GatewayContext,
  gatewayHandler,
  type RequestLike,
  reconciliationFor,
  unreadableError,
} from './context.js'
import {
  amountString,
  assertWellFormedText,
  type CheckoutPaymentStatus,
  lenient,
  nonEmpty,
  type RequestRules,
  redirectUrl,
  type S2sResultValue,
  twoDecimals,
  uuid,
} from './schemas.js'
import { pickInputs } from './signature.js'

/** The gateway returns the original outcome of a repeat inside 15 s (spec Limits 1). */
export const DEDUP_WINDOW_MS = 15_000

/** A string of `min` to `max` characters, saying both bounds when either is broken. */
function lengthBetween(min: number, max: number) {
  const message = `must be ${min} to ${max} characters`
  return z.string().min(min, message).max(max, message)
}

/** Purchase params under a client's rules (the platform defaults for the lengths, its redirect policy). */
function purchaseParams(rules: RequestRules) {
  const url = redirectUrl(rules.allowPrivateRedirectUrls)
  const { min, max } = rules.orderDescriptionLength
  return z.strictObject({
    order: z.strictObject({
      number: lengthBetween(1, rules.orderNumberMaxLength),
      amount: amountString,
      currency: nonEmpty,
      description: lengthBetween(min, max),
    }),
    success_url: url,
    cancel_url: url,
    methods: z.array(nonEmpty).optional(),
    channel_id: nonEmpty.optional(),
    session_expiry: z.number().int().positive().optional(),
    expiry_url: url.optional(),
    error_url: url.optional(),
    url_target: nonEmpty.optional(),
    req_token: z.boolean().optional(),
    card_token: z.array(nonEmpty, { error: 'must be an array of strings for purchase' }).optional(),
    recurring_init: z.boolean().optional(),
    schedule_id: uuid.optional(),
    customer: z
      .strictObject({ name: z.string().optional(), email: z.string().optional(), birth_date: z.string().optional() })
      .optional(),
    billing_address: z
      .strictObject({
        country: z.string().optional(),
        state: z.string().optional(),
        city: z.string().optional(),
        district: z.string().optional(),
        address: z.string().optional(),
        house_number: z.string().optional(),
        zip: z.string().optional(),
        phone: z.string().optional(),
      })
      .optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    custom_data: z.record(z.string(), z.unknown()).optional(),
  })
}

/** Params of Checkout purchase: the nested `order.*` shape plus PLATFORM_NOTES' optional fields. */
export type CheckoutPurchaseParams = z.input<ReturnType<typeof purchaseParams>>

const creditParams = z.strictObject({
  order_id: nonEmpty,
  order_amount: twoDecimals,
  order_currency: nonEmpty,
  order_description: z.string(),
  card_token: z
    .string({
      error: (issue) =>
        Array.isArray(issue.input)
          ? 'must be a single string: the credit endpoint rejects an array card_token (only purchase takes an array)'
          : 'must be a string (the card_token of the original sale)',
    })
    .min(1, 'must not be empty'),
  name: z.string(),
})

/** Params of Checkout credit: the flat shape of the spec, exactly (merchant_key, operation and hash are added). */
export type CheckoutCreditParams = z.input<typeof creditParams>

const statusParams = z
  .strictObject({ payment_id: nonEmpty.optional(), order_id: nonEmpty.optional() })
  .refine((p) => (p.payment_id === undefined) !== (p.order_id === undefined), {
    message: 'give exactly one of payment_id or order_id',
  })

/** Params of Checkout status: `{ payment_id }` or `{ order_id }`. */
export type CheckoutStatusParams = { payment_id: string; order_id?: never } | { order_id: string; payment_id?: never }

/** Answer of purchase: where to send the payer; other fields kept. */
export interface CheckoutPurchaseResult {
  readonly redirect_url: string
  readonly [field: string]: unknown
}

/** Answer of credit (not in the spec): known envelope fields typed, the rest kept. */
export interface CheckoutCreditResult {
  readonly result?: S2sResultValue
  readonly status?: string
  readonly payment_id?: string
  readonly order_id?: string
  readonly [field: string]: unknown
}

/** Answer of the status lookup (PLATFORM_NOTES): known fields typed, the rest kept. */
export interface CheckoutStatusResult {
  readonly payment_id?: string
  readonly date?: string
  readonly status?: CheckoutPaymentStatus
  readonly reason?: string
  readonly order?: {
    readonly number?: string
    readonly amount?: string
    readonly currency?: string
    readonly description?: string
    readonly [field: string]: unknown
  }
  readonly customer?: { readonly name?: string; readonly email?: string; readonly [field: string]: unknown }
  readonly recurring_token?: string
  readonly [field: string]: unknown
}

interface CheckoutRow<S extends z.ZodType, R> {
  readonly operation: CardGatewayOperation
  readonly path: (ctx: GatewayContext) => string
  /** The params schema under the client's rules. */
  readonly params: (rules: RequestRules) => S
  /** Wire field paths signed, in order; the password is appended last. */
  readonly hashInputs: readonly string[]
  readonly retry: RetryPolicy
  /** Refusals zod cannot word well (wrong shape for this endpoint). */
  readonly precheck?: (input: unknown) => void
  /** The JSON wire object without `hash`, in the gateway's field order. */
  readonly toWire: (params: z.output<S>, merchantKey: string) => Record<string, unknown>
  readonly decode: (body: Record<string, unknown>, raw: RawResponse, req: RequestLike) => R
}

const purchase: CheckoutRow<ReturnType<typeof purchaseParams>, CheckoutPurchaseResult> = {
  operation: 'checkout.purchase',
  path: (ctx) => ctx.paths.purchase,
  params: purchaseParams,
  hashInputs: ['order.number', 'order.amount', 'order.currency', 'order.description'], // spec Authentication 5
  retry: withinWindow(DEDUP_WINDOW_MS),
  toWire: ({ order, success_url, cancel_url, ...optional }, merchantKey) => ({
    merchant_key: merchantKey,
    operation: 'purchase',
    ...optional,
    order,
    success_url,
    cancel_url,
  }),
  decode: (body, raw, req) => {
    if (typeof body['redirect_url'] !== 'string') throw unreadableError(raw, req, 'has no "redirect_url"')
    return body as CheckoutPurchaseResult
  },
}

const credit: CheckoutRow<typeof creditParams, CheckoutCreditResult> = {
  operation: 'checkout.credit',
  path: () => '/api/v1/payment/card/credit',
  params: () => creditParams,
  hashInputs: ['order_id', 'order_amount', 'order_currency', 'order_description'], // PLATFORM_NOTES [client]
  retry: withinWindow(DEDUP_WINDOW_MS),
  precheck: (input) => {
    if (typeof input === 'object' && input !== null && 'order' in input) {
      throw new RequestValidationError('checkout.credit', [
        {
          path: 'order',
          message:
            'credit takes the flat shape (order_id, order_amount, order_currency, order_description); the nested order.* shape is rejected by the credit endpoint',
        },
      ])
    }
  },
  toWire: (p, merchantKey) => ({
    merchant_key: merchantKey,
    operation: 'credit',
    order_id: p.order_id,
    order_amount: p.order_amount,
    order_currency: p.order_currency,
    order_description: p.order_description,
    card_token: p.card_token,
    name: p.name,
  }),
  decode: (body) => lenient<CheckoutCreditResult>(body, ['result', 'status', 'payment_id', 'order_id']),
}

const status: CheckoutRow<typeof statusParams, CheckoutStatusResult> = {
  operation: 'checkout.status',
  path: (ctx) => ctx.paths.status,
  params: () => statusParams,
  hashInputs: ['payment_id', 'order_id'], // PLATFORM_NOTES; only one of them is present
  retry: safe, // spec Limits 2
  toWire: (p, merchantKey) => ({ merchant_key: merchantKey, ...p }),
  decode: (body) => lenient<CheckoutStatusResult>(body, ['payment_id', 'date', 'status', 'reason', 'recurring_token']),
}

/** The Checkout interface (JSON bodies, `merchant_key` in the body, spec Authentication 1). */
export class Checkout {
  readonly #ctx: GatewayContext
  /** Each row's schema under this client's rules, built once. */
  readonly #schemas = new Map<unknown, z.ZodType>()

  /** @internal */
  constructor(ctx: GatewayContext) {
    this.#ctx = ctx
  }

  /** Creates a hosted-payment session (PLATFORM_NOTES); retried only inside the 15 s dedup window. */
  purchase(params: CheckoutPurchaseParams, call?: CallOptions): ApiPromise<CheckoutPurchaseResult> {
    return this.#send(purchase, params, call)
  }

  /** Refunds to the card of the original sale (spec: credit); the payment must be settled (rule 2). */
  credit(params: CheckoutCreditParams, call?: CallOptions): ApiPromise<CheckoutCreditResult> {
    return this.#send(credit, params, call)
  }

  /** Looks a payment up by `payment_id` or `order_id`; safe to repeat (spec rule 3, Limits 2). */
  status(params: CheckoutStatusParams, call?: CallOptions): ApiPromise<CheckoutStatusResult> {
    return this.#send(status, params, call)
  }

  #send<S extends z.ZodType, R>(row: CheckoutRow<S, R>, input: unknown, call: CallOptions | undefined): ApiPromise<R> {
    return ApiPromise.try(() => this.#build(row, input, call))
  }

  #build<S extends z.ZodType, R>(row: CheckoutRow<S, R>, input: unknown, call: CallOptions | undefined): ApiPromise<R> {
    const ctx = this.#ctx
    row.precheck?.(input)
    let schema = this.#schemas.get(row) as S | undefined
    if (!schema) {
      schema = row.params(ctx.rules)
      this.#schemas.set(row, schema)
    }
    const params = validateParams(row.operation, schema, input)
    const wire = row.toWire(params, ctx.merchantKey())
    assertWellFormedText(row.operation, wire)
    // The signer reads the wire object itself, so the signed strings are the strings sent.
    wire['hash'] = ctx.sign(pickInputs(wire, ctx.hashInputs(row.operation) ?? row.hashInputs))
    return ctx.http.send(
      {
        operation: row.operation,
        method: 'POST',
        url: ctx.checkoutUrl + row.path(ctx),
        body: jsonBody(wire),
        retry: row.retry,
        reconciliation: reconciliationFor(row.operation, wire),
      },
      gatewayHandler(ctx, row.decode),
      call,
    )
  }
}
