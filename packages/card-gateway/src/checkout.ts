/** Checkout (JSON): purchase, credit and status lookup — one row per operation with its hash inputs and retry policy. */

import {
  type AnswerSchema,
  type ApiPromise,
  defineOperation,
  type OperationClient,
  type OperationOptions,
  type ResultOf,
  safe,
  withinWindow,
} from '@paywire/core'
import { z } from 'zod'
import {
  amountString,
  type CheckoutPaymentStatus,
  type GatewayContext,
  lenient,
  nonEmpty,
  type RequestRules,
  reconcileBy,
  redirectUrl,
  type S2sResultValue,
  twoDecimals,
  uuid,
} from './schemas.js'
import { signedWith } from './signature.js'

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

const checkoutStatus = (orderId: string) => `gw.checkout.status({ order_id: ${JSON.stringify(orderId)} })`

/** The three Checkout operations, JSON bodies carrying `merchant_key` (spec Authentication 1). */
const operations = {
  purchase: defineOperation({
    name: 'checkout.purchase',
    method: 'POST',
    base: 'checkout',
    path: (ctx: GatewayContext) => ctx.paths.purchase,
    params: (ctx: GatewayContext) => purchaseParams(ctx.rules),
    retry: withinWindow(DEDUP_WINDOW_MS),
    toWire: ({ order, success_url, cancel_url, ...optional }, ctx) => ({
      merchant_key: ctx.merchantKey(),
      operation: 'purchase',
      ...optional,
      order,
      success_url,
      cancel_url,
    }),
    finalize: signedWith(['order.number', 'order.amount', 'order.currency', 'order.description']), // spec Authentication 5
    reconcile: reconcileBy('order.number', 'order_id', checkoutStatus),
    decode: (value, reject): CheckoutPurchaseResult => {
      const body = value as Record<string, unknown>
      if (typeof body['redirect_url'] !== 'string') reject('has no "redirect_url"')
      return body as CheckoutPurchaseResult
    },
  }),
  credit: defineOperation({
    name: 'checkout.credit',
    method: 'POST',
    base: 'checkout',
    path: '/api/v1/payment/card/credit',
    params: creditParams,
    precheck: (input) =>
      typeof input === 'object' && input !== null && 'order' in input
        ? [
            {
              path: 'order',
              message:
                'credit takes the flat shape (order_id, order_amount, order_currency, order_description); the nested order.* shape is rejected by the credit endpoint',
            },
          ]
        : [],
    retry: withinWindow(DEDUP_WINDOW_MS),
    toWire: (p, ctx: GatewayContext) => ({
      merchant_key: ctx.merchantKey(),
      operation: 'credit',
      order_id: p.order_id,
      order_amount: p.order_amount,
      order_currency: p.order_currency,
      order_description: p.order_description,
      card_token: p.card_token,
      name: p.name,
    }),
    finalize: signedWith(['order_id', 'order_amount', 'order_currency', 'order_description']), // PLATFORM_NOTES [client]
    reconcile: reconcileBy('order_id', 'order_id', checkoutStatus),
    decode: (value) =>
      lenient<CheckoutCreditResult>(value as Record<string, unknown>, ['result', 'status', 'payment_id', 'order_id']),
  }),
  status: defineOperation({
    name: 'checkout.status',
    method: 'POST',
    base: 'checkout',
    path: (ctx: GatewayContext) => ctx.paths.status,
    params: statusParams,
    retry: safe, // spec Limits 2
    toWire: (p, ctx: GatewayContext) => ({ merchant_key: ctx.merchantKey(), ...p }),
    finalize: signedWith(['payment_id', 'order_id']), // PLATFORM_NOTES; only one of them is present
    decode: (value) =>
      lenient<CheckoutStatusResult>(value as Record<string, unknown>, [
        'payment_id',
        'date',
        'status',
        'reason',
        'recurring_token',
      ]),
  }),
}

/** The Checkout interface (JSON bodies, `merchant_key` in the body, spec Authentication 1). */
export class Checkout {
  readonly #ops: OperationClient<GatewayContext>

  /** @internal */
  constructor(ops: OperationClient<GatewayContext>) {
    this.#ops = ops
  }

  /** Creates a hosted-payment session (PLATFORM_NOTES); retried only inside the 15 s dedup window. */
  purchase<S extends AnswerSchema | undefined = undefined>(
    params: CheckoutPurchaseParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, CheckoutPurchaseResult>> {
    return this.#ops.call(operations.purchase, { body: params }, options)
  }

  /** Refunds to the card of the original sale (spec: credit); the payment must be settled (rule 2). */
  credit<S extends AnswerSchema | undefined = undefined>(
    params: CheckoutCreditParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, CheckoutCreditResult>> {
    return this.#ops.call(operations.credit, { body: params }, options)
  }

  /** Looks a payment up by `payment_id` or `order_id`; safe to repeat (spec rule 3, Limits 2). */
  status<S extends AnswerSchema | undefined = undefined>(
    params: CheckoutStatusParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, CheckoutStatusResult>> {
    return this.#ops.call(operations.status, { body: params }, options)
  }
}
