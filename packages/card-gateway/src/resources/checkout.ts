// Long: one resource, its rows and the public interface they must match, read together.
/** Checkout (JSON): purchase, credit and status lookup — one row per operation with its hash inputs and retry policy. */

import type { ApiPromise, OperationOptions, ResponseSchema } from '@paywire/core'
import {
  type AnswerDecoder,
  defineOperation,
  type FieldKinds,
  type Operation,
  type RejectAnswer,
  recordAnswer,
  resource,
  safe,
  withinWindow,
} from '@paywire/core/engine'
import * as z from '@paywire/core/zod'
import {
  actionAnswerNames,
  amountText,
  type CheckoutPaymentStatus,
  currencyCode,
  exactlyOne,
  type GatewayContext,
  lookupAnswerNames,
  nonEmpty,
  type RequestRules,
  reconcileBy,
  redirectUrl,
  type S2sResultValue,
  uuid,
  withAmountRule,
} from '../fields.js'
import { signWith, withSignature } from '../signing/signature.js'

/** The gateway returns the original outcome of a repeat inside 15 s (rule Limits 1). */
export const DEDUP_WINDOW_MS = 15_000

/** A string of `min` to `max` characters, saying both bounds when either is broken. */
function lengthBetween(min: number, max: number) {
  const message = `must be ${min} to ${max} characters`
  return z.string().check(z.minLength(min, message), z.maxLength(max, message))
}

/** Purchase params under a client's rules (the platform defaults for the lengths, its redirect policy). */
function purchaseParams(rules: RequestRules) {
  const url = redirectUrl(rules.allowPrivateRedirectUrls)
  const { min, max } = rules.orderDescriptionLength
  return z.strictObject({
    /** What is paid for; its four fields are the hash inputs, signed in this order with the password last (rule Authentication 5). */
    order: withAmountRule(
      z.strictObject({
        /** Your order identifier, 1 to 255 characters; the gateway dedups repeats of it for 15 s (rules Limits 1, Platform 6). */
        number: lengthBetween(1, rules.orderNumberMaxLength),
        /** The exact amount string sent and signed, with two decimals: `"10.50"` USD or KWD, `"1000.00"` JPY (rule Interfaces; per currency by opt-in, rule Platform 22; `formatAmount` writes it). */
        amount: amountText(),
        /** ISO 4217 code in capitals, e.g. `"USD"` (rule Platform 22). */
        currency: currencyCode(),
        /** 2 to 1024 characters, shown to the payer (rule Platform 6). */
        description: lengthBetween(min, max),
      }),
      rules.amountForm,
      'amount',
      'currency',
    ),
    /** Where the payer returns after paying: a public HTTPS URL answering 2xx quickly (rule Events 4). */
    success_url: url,
    /** Where the payer returns after cancelling: a public HTTPS URL (rule Events 4). */
    cancel_url: url,
    /** Payment methods offered on the hosted page, as your account names them. */
    methods: z.optional(z.array(nonEmpty())),
    /** The channel of your account the payment goes through. */
    channel_id: z.optional(nonEmpty()),
    /** Minutes the hosted session stays open: a whole number above 0. */
    session_expiry: z.optional(z.number().check(z.int(), z.positive())),
    /** Where the payer goes when the session expires: a public HTTPS URL (rule Events 4). */
    expiry_url: z.optional(url),
    /** Where the payer goes on an error: a public HTTPS URL (rule Events 4). */
    error_url: z.optional(url),
    /** The browser target of the redirect (e.g. `_top`). */
    url_target: z.optional(nonEmpty()),
    /** `true` asks for a `card_token` of the card in the sale callback and status answer: keep it to refund with `credit` (rule Platform 26). */
    req_token: z.optional(z.boolean()),
    /** Saved cards offered to the payer: an array of `card_token`s (unlike credit, which takes one string; rule Platform 5). */
    card_token: z.optional(z.array(nonEmpty(), { error: 'must be an array of strings for purchase' })),
    /** `true` starts a recurring series: the answer's `recurring_token` then feeds `s2s.recurringSale`. */
    recurring_init: z.optional(z.boolean()),
    /** The recurring schedule (a UUID from `s2s.createSchedule`) this payment starts. */
    schedule_id: z.optional(uuid()),
    /** The payer, as the hosted page pre-fills it (rule Platform 5). */
    customer: z.optional(
      z.strictObject({
        /** The payer's name; not empty when given. */
        name: z.optional(nonEmpty()),
        email: z.optional(z.string()),
        /** The payer's birth date, as your account expects it. */
        birth_date: z.optional(z.string()),
      }),
    ),
    /** The payer's billing address (rule Platform 5); every member is optional text. */
    billing_address: z.optional(
      z.strictObject({
        country: z.optional(z.string()),
        state: z.optional(z.string()),
        city: z.optional(z.string()),
        district: z.optional(z.string()),
        address: z.optional(z.string()),
        house_number: z.optional(z.string()),
        zip: z.optional(z.string()),
        phone: z.optional(z.string()),
      }),
    ),
    /** Extra parameters your account defines, sent as given. */
    parameters: z.optional(z.record(z.string(), z.unknown())),
    /** Your own data, returned in answers and callbacks as given. */
    custom_data: z.optional(z.record(z.string(), z.unknown())),
  })
}

/** Credit params: the flat shape, exactly (`merchant_key`, `operation` and `hash` are added). */
function creditParams() {
  return withAmountRule(
    z.strictObject({
      /** A new identifier for this refund, unique per attempt: the gateway dedups on it (rule Limits 1). */
      order_id: nonEmpty(),
      /** The refunded amount as the exact string sent and signed, with two decimals: `"5.00"` (rule Interfaces; `formatAmount` writes it). */
      order_amount: amountText(),
      /** ISO 4217 code in capitals, e.g. `"USD"` (rule Platform 22). */
      order_currency: currencyCode(),
      /** Why the money goes back; free text, signed. */
      order_description: z.string(),
      /** The card of the original sale: ONE string, from the sale callback or status answer of a purchase made with `req_token: true` (rule Platform 26). */
      card_token: z
        .string({
          error: (issue) =>
            Array.isArray(issue.input)
              ? 'must be a single string: the credit endpoint rejects an array card_token (only purchase takes an array)'
              : issue.input === undefined
                ? 'is required: the card_token of the original sale (purchase with req_token: true)'
                : 'must be a string (the card_token of the original sale)',
        })
        .check(z.minLength(1, 'must not be empty')),
      /** The cardholder's name; not empty. */
      name: nonEmpty(),
    }),
    // The credit endpoint takes two decimals in every currency (rule Resources, credit
    // `order_amount`): the per-currency opt-in of purchases does not reach it.
    'two-decimals',
    'order_amount',
    'order_currency',
  )
}

/** Answer of purchase: where to send the payer (rule Platform 5); other fields kept. */
export interface CheckoutPurchaseResult {
  /** The hosted payment page: redirect the payer's browser here. */
  readonly redirect_url: string
  readonly [field: string]: unknown
}

/** Answer of credit (not published): the envelope's known fields typed and checked, the rest kept. */
export interface CheckoutCreditResult {
  /** `SUCCESS`, `ACCEPTED`, … (rule Platform 9). */
  readonly result?: S2sResultValue | null
  readonly status?: string | null
  readonly payment_id?: string | null
  readonly order_id?: string | null
  readonly [field: string]: unknown
}

/** The order as the status lookup shows it (rule Platform 7); its known fields checked, the rest kept. */
export interface CheckoutStatusOrder {
  readonly number?: string | null
  /** The amount string as it was signed. */
  readonly amount?: string | null
  readonly currency?: string | null
  readonly description?: string | null
  readonly [field: string]: unknown
}

/** The payer as the status lookup shows it; its known fields checked, the rest kept. */
interface CheckoutStatusCustomer {
  readonly name?: string | null
  readonly email?: string | null
  readonly [field: string]: unknown
}

/** The status answer's top-level fields whose JSON kind is checked; `null` is the gateway's empty value. */
interface CheckoutStatusFields {
  /** The gateway's payment identifier (the callback's `id`). */
  readonly payment_id?: string | null
  readonly date?: string | null
  /** Lowercase state: `pending` is authorised, not captured; `settled` is captured (rules States, Platform 7). */
  readonly status?: CheckoutPaymentStatus | null
  /** Why a payment was declined or failed. */
  readonly reason?: string | null
  /** The card of this payment, when it was bought with `req_token: true`: what `credit` refunds to (rule Platform 26). */
  readonly card_token?: string | null
  /** The token of an initial recurring payment (`recurring_init: true`), for `s2s.recurringSale`. */
  readonly recurring_token?: string | null
  readonly [field: string]: unknown
}

/** Answer of the status lookup (rule Platform 7): known fields typed and checked, the rest kept. */
export interface CheckoutStatusResult extends CheckoutStatusFields {
  readonly order?: CheckoutStatusOrder | null
  readonly customer?: CheckoutStatusCustomer | null
}

// The JSON kind of each known answer field: text (a number the gateway writes for one reads as its
// decimal text). Another kind makes the answer unreadable, never dropped (core's one decoding policy).
const CREDIT_KINDS: FieldKinds<CheckoutCreditResult> = {
  result: 'text',
  status: 'text',
  payment_id: 'text',
  order_id: 'text',
}
const STATUS_KINDS: FieldKinds<CheckoutStatusFields> = {
  payment_id: 'text',
  date: 'text',
  status: 'text',
  reason: 'text',
  card_token: 'text',
  recurring_token: 'text',
}
const ORDER_KINDS: FieldKinds<CheckoutStatusOrder> = {
  number: 'text',
  amount: 'text',
  currency: 'text',
  description: 'text',
}
const CUSTOMER_KINDS: FieldKinds<CheckoutStatusCustomer> = { name: 'text', email: 'text' }

/** Decodes the credit answer; decoders are made on first use, not at import. */
function decodeCredit(value: unknown, reject: RejectAnswer): CheckoutCreditResult {
  decoders ??= makeDecoders()
  // The card's reader hands over a JSON object only; an empty answer is refused before this.
  return decoders.credit(value, reject) ?? reject('is empty')
}

/** Decodes the status answer: its own fields, then `order` and `customer` by the same policy. */
function decodeStatus(value: unknown, reject: RejectAnswer): CheckoutStatusResult {
  decoders ??= makeDecoders()
  const top = decoders.status(value, reject) ?? reject('is empty')
  const order = member(top, 'order', decoders.order, reject)
  const customer = member(top, 'customer', decoders.customer, reject)
  if (order === top['order'] && customer === top['customer']) return top
  return { ...top, order, customer }
}

/** A nested object member, decoded by `decode` with the member's name before each problem. */
function member<T>(
  record: Readonly<Record<string, unknown>>,
  name: string,
  decode: AnswerDecoder<T>,
  reject: RejectAnswer,
) {
  const value = record[name]
  if (value === undefined || value === null) return value
  if (typeof value !== 'object' || Array.isArray(value)) {
    reject(`${name} is ${Array.isArray(value) ? 'an array' : `a ${typeof value}`}, not an object`)
  }
  return decode(value, (problem) => reject(`${name}.${problem}`))
}

function makeDecoders() {
  return {
    credit: recordAnswer<CheckoutCreditResult>(CREDIT_KINDS),
    status: recordAnswer<CheckoutStatusFields>(STATUS_KINDS),
    order: recordAnswer<CheckoutStatusOrder>(ORDER_KINDS),
    customer: recordAnswer<CheckoutStatusCustomer>(CUSTOMER_KINDS),
  }
}
let decoders: ReturnType<typeof makeDecoders> | undefined

/**
 * A Checkout row: `POST` to the Checkout base URL with a JSON body, signed with the row's own
 * `hashInputs` in order and the password last (rule Authentication 5). The row keeps its
 * `hashInputs`: `SIGNED_OPERATIONS` is read from the rows.
 */
function checkoutOperation<
  S extends z.ZodMiniType,
  Result,
  const Path extends string,
  const H extends readonly string[],
>(
  row: Omit<Operation<GatewayContext, S, Result, Path, false>, 'method' | 'base' | 'finalize'> & {
    readonly hashInputs: H
  },
) {
  const { hashInputs, ...spec } = row
  const defined = defineOperation<GatewayContext, S, Result, Path, false>({
    ...spec,
    method: 'POST',
    base: 'checkout',
    finalize: signWith(hashInputs),
  })
  return withSignature(defined, { action: undefined, hashInputs })
}

const checkoutStatus = (orderId: string) => `gw.checkout.status({ order_id: ${JSON.stringify(orderId)} })`

/**
 * The three Checkout operations, JSON bodies carrying `merchant_key` (rule Authentication 1), one
 * row each; each row is also the `gw.checkout` method of its name.
 */
export const CHECKOUT = {
  purchase: checkoutOperation({
    name: 'checkout.purchase',
    hashInputs: ['order.number', 'order.amount', 'order.currency', 'order.description'],
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
    reconcile: reconcileBy('order.number', 'order_id', checkoutStatus),
    // No answer binding: the answer is published to carry redirect_url only (rule Platform 5), no
    // identifier to bind it by.
    decode: (value, reject): CheckoutPurchaseResult => {
      const body = value as Record<string, unknown>
      if (typeof body['redirect_url'] !== 'string') reject('has no "redirect_url"')
      return body as CheckoutPurchaseResult
    },
  }),
  credit: checkoutOperation({
    name: 'checkout.credit',
    hashInputs: ['order_id', 'order_amount', 'order_currency', 'order_description'],
    path: '/api/v1/payment/card/credit',
    params: () => creditParams(),
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
    reconcile: reconcileBy('order_id', 'order_id', checkoutStatus),
    answerBinding: actionAnswerNames('order_id'),
    decode: decodeCredit,
  }),
  status: checkoutOperation({
    name: 'checkout.status',
    // Only one of the two is sent; an absent field adds nothing.
    hashInputs: ['payment_id', 'order_id'],
    path: (ctx: GatewayContext) => ctx.paths.status,
    params: () =>
      exactlyOne(
        z.strictObject({
          /** The gateway's payment identifier (the callback's `id`). */
          payment_id: z.optional(nonEmpty()),
          /** Your order identifier. */
          order_id: z.optional(nonEmpty()),
        }),
        'give exactly one of payment_id or order_id',
      ),
    retry: safe, // rule Limits 2
    toWire: (p, ctx: GatewayContext) => ({ merchant_key: ctx.merchantKey(), ...p }),
    // The answer names the payment by payment_id and the order by order.number (rule Platform 7).
    answerBinding: lookupAnswerNames({ payment_id: ['payment_id'], order_id: ['order.number'] }),
    decode: decodeStatus,
  }),
}

/**
 * The Checkout interface (`gw.checkout`): JSON bodies with `merchant_key` in the body (rule
 * Authentication 1). Every method also takes a `schema` in its options, which checks the answer and
 * types the result with it.
 */
export interface Checkout {
  /** Creates a hosted-payment session (rule Platform 5); retried only inside the 15 s dedup window (rule Limits 1). */
  purchase(params: CheckoutPurchaseParams, options?: OperationOptions): ApiPromise<CheckoutPurchaseResult>
  purchase<T>(params: CheckoutPurchaseParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** Refunds to the card of the original sale (its `card_token`); the payment must be settled (rule States 2). */
  credit(params: CheckoutCreditParams, options?: OperationOptions): ApiPromise<CheckoutCreditResult>
  credit<T>(params: CheckoutCreditParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** Looks a payment up by `payment_id` or `order_id`; safe to repeat (rules States 3, Limits 2). */
  status(params: CheckoutStatusParams, options?: OperationOptions): ApiPromise<CheckoutStatusResult>
  status<T>(params: CheckoutStatusParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
}

/** `Checkout` made from the rows of `CHECKOUT` (which must match it: see `resource`). */
export class CheckoutResource extends resource<GatewayContext, typeof CHECKOUT, Checkout>(CHECKOUT) {}

// The params types users import, derived from the rows (one source: the schema and its field docs).
// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof CHECKOUT.purchase>
/** Params of Checkout purchase: the nested `order` shape and the platform's optional fields (rule Platform 5). */
export interface CheckoutPurchaseParams {
  /**
   * What is paid for; its four fields are the hash inputs, signed in this order with the password last (rule Authentication 5).
   */
  order: {
    /**
     * Your order identifier, 1 to 255 characters; the gateway dedups repeats of it for 15 s (rules Limits 1, Platform 6).
     */
    number: string
    /**
     * The exact amount string sent and signed, with two decimals: `"10.50"` USD or KWD, `"1000.00"` JPY (rule Interfaces; per currency by opt-in, rule Platform 22; `formatAmount` writes it).
     */
    amount: string
    /** ISO 4217 code in capitals, e.g. `"USD"` (rule Platform 22). */
    currency: string
    /** 2 to 1024 characters, shown to the payer (rule Platform 6). */
    description: string
  }
  /** Where the payer returns after paying: a public HTTPS URL answering 2xx quickly (rule Events 4). */
  success_url: string
  /** Where the payer returns after cancelling: a public HTTPS URL (rule Events 4). */
  cancel_url: string
  /** Payment methods offered on the hosted page, as your account names them. */
  methods?: string[] | undefined
  /** The channel of your account the payment goes through. */
  channel_id?: string | undefined
  /** Minutes the hosted session stays open: a whole number above 0. */
  session_expiry?: number | undefined
  /** Where the payer goes when the session expires: a public HTTPS URL (rule Events 4). */
  expiry_url?: string | undefined
  /** Where the payer goes on an error: a public HTTPS URL (rule Events 4). */
  error_url?: string | undefined
  /** The browser target of the redirect (e.g. `_top`). */
  url_target?: string | undefined
  /**
   * `true` asks for a `card_token` of the card in the sale callback and status answer: keep it to refund with `credit` (rule Platform 26).
   */
  req_token?: boolean | undefined
  /**
   * Saved cards offered to the payer: an array of `card_token`s (unlike credit, which takes one string; rule Platform 5).
   */
  card_token?: string[] | undefined
  /** `true` starts a recurring series: the answer's `recurring_token` then feeds `s2s.recurringSale`. */
  recurring_init?: boolean | undefined
  /** The recurring schedule (a UUID from `s2s.createSchedule`) this payment starts. */
  schedule_id?: string | undefined
  /** The payer, as the hosted page pre-fills it (rule Platform 5). */
  customer?:
    | {
        /** The payer's name; not empty when given. */
        name?: string | undefined
        email?: string | undefined
        /** The payer's birth date, as your account expects it. */
        birth_date?: string | undefined
      }
    | undefined
  /** The payer's billing address (rule Platform 5); every member is optional text. */
  billing_address?:
    | {
        country?: string | undefined
        state?: string | undefined
        city?: string | undefined
        district?: string | undefined
        address?: string | undefined
        house_number?: string | undefined
        zip?: string | undefined
        phone?: string | undefined
      }
    | undefined
  /** Extra parameters your account defines, sent as given. */
  parameters?: Record<string, unknown> | undefined
  /** Your own data, returned in answers and callbacks as given. */
  custom_data?: Record<string, unknown> | undefined
}
type Order = CheckoutPurchaseParams['order']
/** The order of a purchase, signed in this field order with the password last (rule Authentication 5). */
export interface CheckoutOrder extends Order {}
type Customer = NonNullable<CheckoutPurchaseParams['customer']>
/** The payer of a purchase, as the hosted page pre-fills it (rule Platform 5). */
export interface CheckoutCustomer extends Customer {}
type BillingAddress = NonNullable<CheckoutPurchaseParams['billing_address']>
/** The payer's billing address (rule Platform 5); every member is optional text. */
export interface CheckoutBillingAddress extends BillingAddress {}
// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof CHECKOUT.credit>
/** Params of Checkout credit: the flat shape, exactly (`merchant_key`, `operation` and `hash` are added). */
export interface CheckoutCreditParams {
  /** A new identifier for this refund, unique per attempt: the gateway dedups on it (rule Limits 1). */
  order_id: string
  /**
   * The refunded amount as the exact string sent and signed, with two decimals: `"5.00"` (rule Interfaces; `formatAmount` writes it).
   */
  order_amount: string
  /** ISO 4217 code in capitals, e.g. `"USD"` (rule Platform 22). */
  order_currency: string
  /** Why the money goes back; free text, signed. */
  order_description: string
  /**
   * The card of the original sale: ONE string, from the sale callback or status answer of a purchase made with `req_token: true` (rule Platform 26).
   */
  card_token: string
  /** The cardholder's name; not empty. */
  name: string
}
// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof CHECKOUT.status>
/** Params of Checkout status: `{ payment_id }` or `{ order_id }`, exactly one (rule Platform 7). */
export type CheckoutStatusParams =
  | {
      /** Your order identifier. */
      order_id: string
      payment_id?: undefined
    }
  | {
      /** The gateway's payment identifier (the callback's `id`). */
      payment_id: string
      order_id?: undefined
    }
