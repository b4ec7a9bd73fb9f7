/** Wire types and zod schemas of every remittance request body (rules Resources 1–8). */

import type { Query } from '@paywire/core'
import * as z from 'zod'

/** Any JSON value: what `remit.request(...)` and a `schema` such as `z.json()` read. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

/**
 * Any parsed success body, or `undefined` for an answer without one: the type every result had
 * before the results were typed.
 *
 * @deprecated Each method now resolves with its own result type (`Transfer`, `Confirmation`,
 * `readonly Bank[]`…). To read any JSON as before, pass `{ schema: z.json().optional() }`.
 */
export type RemittanceResult = JsonValue | undefined

/** Query parameters of a GET lookup: the service does not publish them, so any name is sent as given (rule Endpoints 21). */
export type LookupQuery = Query

// ---- field rules ------------------------------------------------------------------------------

const text = z.string()

/**
 * The service publishes no amount bounds (rule Limits); an amount must still be a finite number >= 0
 * to mean money. NaN and Infinity are numbers to JavaScript but not to JSON (they would be sent as
 * `null`): their refusal says so, and every other refusal keeps core's wording.
 */
const amount = z
  .number({
    error: (issue) =>
      issue.code === 'invalid_type' && typeof issue.input === 'number'
        ? `must be a finite number, not ${issue.input} (JSON cannot carry it)`
        : undefined,
  })
  .nonnegative()

/** Platform default: SLE is the redenominated leone with 2 decimals, 1 SLE = 1000 old SLL (rule Platform 4). */
export const DEFAULT_SLE_DECIMALS = 2

/** An SLE amount with at most `decimals` decimal places (`platformDefaults.sleDecimals`). */
function amountSleWith(decimals: number) {
  const message =
    decimals === 0
      ? 'SLE amounts are whole numbers'
      : `SLE amounts have at most ${decimals} decimal place${decimals === 1 ? '' : 's'}`
  return amount.refine((value) => Number(value.toFixed(decimals)) === value, { message })
}

/** The natural idempotency key (rule Platform 5); an empty one could not identify a transfer. */
const reference = z.string().min(1, 'must not be empty')

/** Finds the first part of `value` that `JSON.stringify` would drop or change, with its path. */
function nonJsonAt(
  value: unknown,
  path: (string | number)[],
): { path: (string | number)[]; found: string } | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : { path, found: String(value) }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const bad = nonJsonAt(item, [...path, index])
      if (bad) return bad
    }
    return undefined
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) return { path, found: proto?.constructor?.name ?? 'object' }
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) continue
      const bad = nonJsonAt(item, [...path, key])
      if (bad) return bad
    }
    return undefined
  }
  return { path, found: typeof value }
}

/** A member of an open record: any JSON value, reported with its exact path when it is not one. */
const jsonMember = z.unknown().superRefine((value, ctx) => {
  if (value === undefined) return
  const bad = nonJsonAt(value, [])
  if (bad) {
    ctx.addIssue({
      code: 'custom',
      path: bad.path,
      message: `must be a JSON value (string, finite number, boolean, null, array or plain object), got ${bad.found}`,
    })
  }
})

// ---- beneficiaries ------------------------------------------------------------------------------

/**
 * CreateBeneficiaryRequest: all fields are strings (rule Resources 1). The service publishes no
 * required flags (rule Resources 7), so every field is optional here and the service decides what it
 * needs (its 400 names the missing fields).
 */
export interface BeneficiaryFields {
  readonly linkedRemitterId?: string
  readonly firstName?: string
  readonly lastName?: string
  readonly address1?: string
  readonly city?: string
  readonly state?: string
  readonly postcode?: string
  readonly country?: string
  readonly nationality?: string
  readonly telephone?: string
  readonly posid?: string
  readonly mobile?: string
  readonly idDetails?: string
}

/** Body of `POST /api/beneficiaries` (CreateBeneficiaryRequest). */
export type BeneficiariesCreateParams = BeneficiaryFields

/**
 * Body of `PUT /api/beneficiaries`. UpdateBeneficiaryRequest's fields are not published (rule
 * Resources 8): the beneficiary fields are typed as strings when present (a guess: an update carries
 * the same fields), every other member passes through as JSON.
 */
export interface BeneficiariesUpdateParams extends BeneficiaryFields {
  readonly [field: string]: unknown
}

const beneficiaryShape = {
  linkedRemitterId: text.optional(),
  firstName: text.optional(),
  lastName: text.optional(),
  address1: text.optional(),
  city: text.optional(),
  state: text.optional(),
  postcode: text.optional(),
  country: text.optional(),
  nationality: text.optional(),
  telephone: text.optional(),
  posid: text.optional(),
  mobile: text.optional(),
  idDetails: text.optional(),
}

/** The field names of CreateBeneficiaryRequest, in the service's order (rule Resources 1). */
export const BENEFICIARY_FIELDS = Object.keys(beneficiaryShape) as (keyof BeneficiaryFields)[]

export const beneficiaryCreateSchema = z.strictObject(beneficiaryShape)
export const beneficiaryUpdateSchema = z.object(beneficiaryShape).catchall(jsonMember)

// ---- lookups ------------------------------------------------------------------------------------

/** Rate lookup request: `sendingAmountSLE` and `receivingAmountFX` numbers, the rest strings (rule Resources 2). */
export interface LookupRatesParams {
  /** Amount in SLE (at most 2 decimals, rule Platform 4). */
  readonly sendingAmountSLE?: number
  /** Amount in the destination currency. */
  readonly receivingAmountFX?: number
  /** `SOURCE` or `DESTINATION` upstream (rule Platform 1); not enforced. */
  readonly amountType?: string
  readonly sourceCurrency?: string
  readonly destinationCountry?: string
  readonly destCurrency?: string
  readonly serviceType?: string
}

function ratesSchemaWith(amountSle: z.ZodType<number, number>) {
  return z.strictObject({
    sendingAmountSLE: amountSle.optional(),
    receivingAmountFX: amount.optional(),
    amountType: text.optional(),
    sourceCurrency: text.optional(),
    destinationCountry: text.optional(),
    destCurrency: text.optional(),
    serviceType: text.optional(),
  })
}

/** Body of `POST /api/lookup/name-enquiry`: NameEnquiryRequest's fields are not published (rule Resources 8), so any JSON members. */
export interface LookupNameEnquiryParams {
  readonly [field: string]: unknown
}

export const nameEnquirySchema = z.object({}).catchall(jsonMember)

/**
 * GetTransactionFeesRequest: the service names this schema but no endpoint uses it, and its fields
 * are not published (rule Resources 8). Exported for `remit.request(...)` if the service documents a
 * fee endpoint later.
 */
export interface TransactionFeesRequest {
  readonly [field: string]: unknown
}

// ---- transactions -------------------------------------------------------------------------------

/** Fields common to the mobile transfer and cash collection requests: strings, except `amountSLE` and `fees` (rule Resources 3). */
export interface TransactionCommonFields {
  readonly remitterId?: string
  readonly beneficiaryId?: string
  readonly destinationCountry?: string
  /** `Account`, `Cash Collection` or `Mobile Transfer` upstream (rule Platform 1). */
  readonly transType?: string
  readonly purpose?: string
  readonly sourceOfIncome?: string
  readonly paymentMethod?: string
  readonly amountDeposited?: string
  readonly bankBranchDeposited?: string
  readonly serviceLevel?: string
  readonly smsConfirmation?: string
  readonly smsNotification?: string
  readonly smsMobile?: string
  readonly sourceCurrency?: string
  readonly destinationCurrency?: string
  readonly amountType?: string
  /**
   * The idempotency key (rule Platform 5: a reused one is rejected). Filled with a random
   * UUID when omitted, and returned with the result and on every error of the call.
   */
  readonly agentTransactionRef?: string
  readonly benefTransRef?: string
  readonly amountToSend?: string
  /** Amount in SLE (at most 2 decimals, rule Platform 4). */
  readonly amountSLE?: number
  readonly fees?: number
}

/** Body of `POST /api/transactions/mobile-transfer` (rule Resources 4). */
export interface TransactionsMobileTransferParams extends TransactionCommonFields {
  readonly beneficiaryMobileTransferNumber?: string
  readonly beneficiaryMobileTransferNetworkId?: string
  readonly beneficiaryMobileTransferNetworkCreditTypeId?: string
}

/** Body of `POST /api/transactions/cash-collection` (rule Resources 5). */
export interface TransactionsCashCollectionParams extends TransactionCommonFields {
  readonly collectionPointId?: string
  /** The PIN the beneficiary collects with; never logged by the SDK (bodies are not logged). */
  readonly collectionPin?: string
}

/**
 * Body of the bank transfer (BankTransferTransactionRequest, fields not published: rule Resources 8). The common
 * transaction fields are typed when present (a guess: every transfer shares them, and
 * `agentTransactionRef` is needed for reconciliation); every other member passes through as JSON.
 */
export interface TransactionsBankTransferParams extends TransactionCommonFields {
  readonly [field: string]: unknown
}

function transactionShapeWith(amountSle: z.ZodType<number, number>) {
  return {
    remitterId: text.optional(),
    beneficiaryId: text.optional(),
    destinationCountry: text.optional(),
    transType: text.optional(),
    purpose: text.optional(),
    sourceOfIncome: text.optional(),
    paymentMethod: text.optional(),
    amountDeposited: text.optional(),
    bankBranchDeposited: text.optional(),
    serviceLevel: text.optional(),
    smsConfirmation: text.optional(),
    smsNotification: text.optional(),
    smsMobile: text.optional(),
    sourceCurrency: text.optional(),
    destinationCurrency: text.optional(),
    amountType: text.optional(),
    agentTransactionRef: reference.optional(),
    benefTransRef: text.optional(),
    amountToSend: text.optional(),
    amountSLE: amountSle.optional(),
    fees: amount.optional(),
  }
}

/**
 * The body schemas that depend on the client's `sleDecimals`: what the rows read from the client,
 * each typed by the params it takes.
 */
export interface SleBodySchemas {
  readonly rates: z.ZodType<unknown, LookupRatesParams>
  readonly mobileTransfer: z.ZodType<unknown, TransactionsMobileTransferParams>
  readonly cashCollection: z.ZodType<unknown, TransactionsCashCollectionParams>
  readonly bankTransfer: z.ZodType<unknown, TransactionsBankTransferParams>
}

/** The body schemas that carry SLE amounts, for `sleDecimals` decimal places. */
export function sleBodySchemas(sleDecimals: number): SleBodySchemas {
  const amountSle = amountSleWith(sleDecimals)
  const transactionShape = transactionShapeWith(amountSle)
  return {
    rates: ratesSchemaWith(amountSle),
    mobileTransfer: z.strictObject({
      ...transactionShape,
      beneficiaryMobileTransferNumber: text.optional(),
      beneficiaryMobileTransferNetworkId: text.optional(),
      beneficiaryMobileTransferNetworkCreditTypeId: text.optional(),
    }),
    cashCollection: z.strictObject({
      ...transactionShape,
      collectionPointId: text.optional(),
      collectionPin: text.optional(),
    }),
    bankTransfer: z.object(transactionShape).catchall(jsonMember),
  }
}
