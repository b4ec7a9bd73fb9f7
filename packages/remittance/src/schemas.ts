/**
 * The zod schemas of every remittance request body (rules Resources 1–8): the one source of each
 * body's fields, their rules and their docs (each shape member's JSDoc shows in the method's hover).
 * Nothing here builds a schema at import: each is a function a row calls on its first call, once per
 * client (with the client's rules, e.g. its `sleDecimals`).
 */

import type { JsonValue, Query, ValidationIssue } from '@paywire/core'
import { jsonObjectIssues } from '@paywire/core/engine'
import * as z from 'zod'

// One JSON value type across the packages: core's.
export type { JsonValue } from '@paywire/core'

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

/** What a client hands its rows: the platform defaults its request checks rest on (`platformDefaults`). */
export interface RemittanceRules {
  /** Most decimal places of an SLE amount (rule Platform 4). */
  readonly sleDecimals: number
}

/** Platform default: SLE is the redenominated leone with 2 decimals, 1 SLE = 1000 old SLL (rule Platform 4). */
export const DEFAULT_SLE_DECIMALS = 2

// ---- field rules ------------------------------------------------------------------------------

function text() {
  return z.string().optional()
}

/**
 * The service publishes no amount bounds (rule Limits); an amount must still be a finite number >= 0
 * to mean money. NaN and Infinity are numbers to JavaScript but not to JSON (they would be sent as
 * `null`): their refusal says so, and every other refusal keeps core's wording.
 */
function amount() {
  return z
    .number({
      error: (issue) =>
        issue.code === 'invalid_type' && typeof issue.input === 'number'
          ? `must be a finite number, not ${issue.input} (JSON cannot carry it)`
          : undefined,
    })
    .nonnegative()
}

/** An SLE amount with at most `sleDecimals` decimal places (`platformDefaults.sleDecimals`, rule Platform 4). */
function amountSle({ sleDecimals: decimals }: RemittanceRules) {
  const message =
    decimals === 0
      ? 'SLE amounts are whole numbers'
      : `SLE amounts have at most ${decimals} decimal place${decimals === 1 ? '' : 's'}`
  return amount()
    .refine((value) => Number(value.toFixed(decimals)) === value, { message })
    .optional()
}

/**
 * The `precheck` of a body whose fields are not published (rule Resources 8): a plain JSON object
 * whose every member is sent as given. What JSON cannot carry (a cycle, NaN, a `Date`, a function…)
 * is refused with its path (`extra.items.0`), by core's one JSON check, before the schema runs.
 */
export function openBodyIssues(body: unknown): readonly ValidationIssue[] {
  return jsonObjectIssues(body, '')
}

/** A member of an open body: any value (`openBodyIssues` has refused what JSON cannot carry). */
function jsonMember() {
  return z.unknown()
}

// ---- beneficiaries ------------------------------------------------------------------------------

/**
 * CreateBeneficiaryRequest: all fields are strings (rule Resources 1). The service publishes no
 * required flags (rule Resources 7), so every field is optional here and the service decides what it
 * needs (its 400 names the missing fields).
 */
function beneficiaryShape() {
  return {
    /** The remitter this beneficiary belongs to. */
    linkedRemitterId: text(),
    /** The beneficiary's first name. */
    firstName: text(),
    /** The beneficiary's last name. */
    lastName: text(),
    /** First line of the beneficiary's address. */
    address1: text(),
    /** The beneficiary's city. */
    city: text(),
    /** The beneficiary's state or region. */
    state: text(),
    /** The beneficiary's postcode. */
    postcode: text(),
    /** The beneficiary's country. */
    country: text(),
    /** The beneficiary's nationality. */
    nationality: text(),
    /** The beneficiary's telephone number; `beneficiaries.getByTelephone` finds by it. */
    telephone: text(),
    /** The point of sale the beneficiary is registered under; `beneficiaries.getByPosId` lists them all. */
    posid: text(),
    /** The beneficiary's mobile number. */
    mobile: text(),
    /** The beneficiary's identity document details. */
    idDetails: text(),
  }
}

/** `POST /api/beneficiaries` (CreateBeneficiaryRequest, rule Resources 1): only its own fields. */
export function beneficiaryCreateSchema() {
  return z.strictObject(beneficiaryShape())
}

/**
 * `PUT /api/beneficiaries`. UpdateBeneficiaryRequest's fields are not published (rule Resources 8):
 * the beneficiary fields are typed as strings when present (a guess: an update carries the same
 * fields), every other member passes through as JSON.
 */
export function beneficiaryUpdateSchema() {
  return z.object(beneficiaryShape()).catchall(jsonMember())
}

// Written out by scripts/public-types.mjs (edit the rows, then run it) from: z.input<ReturnType<typeof beneficiaryCreateSchema>>
/** The fields of a beneficiary (CreateBeneficiaryRequest), as its schema declares them. */
export interface BeneficiaryInput {
  /** The remitter this beneficiary belongs to. */
  linkedRemitterId?: string | undefined
  /** The beneficiary's first name. */
  firstName?: string | undefined
  /** The beneficiary's last name. */
  lastName?: string | undefined
  /** First line of the beneficiary's address. */
  address1?: string | undefined
  /** The beneficiary's city. */
  city?: string | undefined
  /** The beneficiary's state or region. */
  state?: string | undefined
  /** The beneficiary's postcode. */
  postcode?: string | undefined
  /** The beneficiary's country. */
  country?: string | undefined
  /** The beneficiary's nationality. */
  nationality?: string | undefined
  /** The beneficiary's telephone number; `beneficiaries.getByTelephone` finds by it. */
  telephone?: string | undefined
  /** The point of sale the beneficiary is registered under; `beneficiaries.getByPosId` lists them all. */
  posid?: string | undefined
  /** The beneficiary's mobile number. */
  mobile?: string | undefined
  /** The beneficiary's identity document details. */
  idDetails?: string | undefined
}

/** The field names of CreateBeneficiaryRequest, in the service's order (rule Resources 1). */
export const BENEFICIARY_FIELDS: (keyof BeneficiaryInput)[] = [
  'linkedRemitterId',
  'firstName',
  'lastName',
  'address1',
  'city',
  'state',
  'postcode',
  'country',
  'nationality',
  'telephone',
  'posid',
  'mobile',
  'idDetails',
]

// ---- lookups ------------------------------------------------------------------------------------

/** `POST /api/lookup/rates`: `sendingAmountSLE` and `receivingAmountFX` numbers, the rest strings (rule Resources 2). */
export function ratesSchema(rules: RemittanceRules) {
  return z.strictObject({
    /** Amount in SLE (at most `platformDefaults.sleDecimals` decimals, 2 by default; rule Platform 4). */
    sendingAmountSLE: amountSle(rules),
    /** Amount in the destination currency. */
    receivingAmountFX: amount().optional(),
    /** `SOURCE` or `DESTINATION` upstream (rule Platform 1); not enforced. */
    amountType: text(),
    /** The currency sent. */
    sourceCurrency: text(),
    /** The country the money goes to. */
    destinationCountry: text(),
    /** The currency the beneficiary receives. */
    destCurrency: text(),
    /** The kind of transfer quoted. */
    serviceType: text(),
  })
}

/** `POST /api/lookup/name-enquiry`: NameEnquiryRequest's fields are not published (rule Resources 8), so any JSON members. */
export function nameEnquirySchema() {
  return z.object({}).catchall(jsonMember())
}

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
export function transactionShape(rules: RemittanceRules) {
  return {
    /** The remitter sending the money. */
    remitterId: text(),
    /** The beneficiary receiving it (`Beneficiary.beneficiaryId`). */
    beneficiaryId: text(),
    /** The country the money goes to. */
    destinationCountry: text(),
    /** `Account`, `Cash Collection` or `Mobile Transfer` upstream (rule Platform 1). */
    transType: text(),
    /** Why the money is sent. */
    purpose: text(),
    /** Where the remitter's money comes from. */
    sourceOfIncome: text(),
    /** How the remitter pays. */
    paymentMethod: text(),
    /** The amount the remitter deposited, as a string. */
    amountDeposited: text(),
    /** The bank branch the remitter deposited at. */
    bankBranchDeposited: text(),
    /** The service level of the transfer. */
    serviceLevel: text(),
    /** Whether to confirm by SMS. */
    smsConfirmation: text(),
    /** Whether to notify by SMS. */
    smsNotification: text(),
    /** The mobile number SMS messages go to. */
    smsMobile: text(),
    /** The currency sent. */
    sourceCurrency: text(),
    /** The currency the beneficiary receives. */
    destinationCurrency: text(),
    /** `SOURCE` or `DESTINATION` upstream (rule Platform 1); not enforced. */
    amountType: text(),
    /**
     * The idempotency key (rule Platform 5: a reused one is rejected). Filled with a random
     * UUID when omitted, and returned with the result and on every error of the call.
     */
    agentTransactionRef: z.string().min(1, 'must not be empty').optional(),
    /** The beneficiary's reference for the transfer. */
    benefTransRef: text(),
    /** The amount to send, as a string. */
    amountToSend: text(),
    /** Amount in SLE (at most `platformDefaults.sleDecimals` decimals, 2 by default; rule Platform 4). */
    amountSLE: amountSle(rules),
    /** The fees charged, a number. */
    fees: amount().optional(),
  }
}

// Written out by scripts/public-types.mjs (edit the rows, then run it) from: z.input<z.ZodObject<ReturnType<typeof transactionShape>>>
/** The fields every transfer shares (rule Resources 3), as their schema declares them. */
export interface TransactionCommonFields {
  /** The remitter sending the money. */
  remitterId?: string | undefined
  /** The beneficiary receiving it (`Beneficiary.beneficiaryId`). */
  beneficiaryId?: string | undefined
  /** The country the money goes to. */
  destinationCountry?: string | undefined
  /** `Account`, `Cash Collection` or `Mobile Transfer` upstream (rule Platform 1). */
  transType?: string | undefined
  /** Why the money is sent. */
  purpose?: string | undefined
  /** Where the remitter's money comes from. */
  sourceOfIncome?: string | undefined
  /** How the remitter pays. */
  paymentMethod?: string | undefined
  /** The amount the remitter deposited, as a string. */
  amountDeposited?: string | undefined
  /** The bank branch the remitter deposited at. */
  bankBranchDeposited?: string | undefined
  /** The service level of the transfer. */
  serviceLevel?: string | undefined
  /** Whether to confirm by SMS. */
  smsConfirmation?: string | undefined
  /** Whether to notify by SMS. */
  smsNotification?: string | undefined
  /** The mobile number SMS messages go to. */
  smsMobile?: string | undefined
  /** The currency sent. */
  sourceCurrency?: string | undefined
  /** The currency the beneficiary receives. */
  destinationCurrency?: string | undefined
  /** `SOURCE` or `DESTINATION` upstream (rule Platform 1); not enforced. */
  amountType?: string | undefined
  /**
   * The idempotency key (rule Platform 5: a reused one is rejected). Filled with a random
   * UUID when omitted, and returned with the result and on every error of the call.
   */
  agentTransactionRef?: string | undefined
  /** The beneficiary's reference for the transfer. */
  benefTransRef?: string | undefined
  /** The amount to send, as a string. */
  amountToSend?: string | undefined
  /** Amount in SLE (at most `platformDefaults.sleDecimals` decimals, 2 by default; rule Platform 4). */
  amountSLE?: number | undefined
  /** The fees charged, a number. */
  fees?: number | undefined
}

/** `POST /api/transactions/mobile-transfer`: the common fields and the mobile money account (rule Resources 4). */
export function mobileTransferSchema(rules: RemittanceRules) {
  return z.strictObject({
    ...transactionShape(rules),
    /** The beneficiary's mobile money number. */
    beneficiaryMobileTransferNumber: text(),
    /** The mobile network (`remit.lookup.mobileOperators`). */
    beneficiaryMobileTransferNetworkId: text(),
    /** The network's credit type (`remit.lookup.mobileOperatorCreditTypes`). */
    beneficiaryMobileTransferNetworkCreditTypeId: text(),
  })
}

/** `POST /api/transactions/cash-collection`: the common fields and where the cash is collected (rule Resources 5). */
export function cashCollectionSchema(rules: RemittanceRules) {
  return z.strictObject({
    ...transactionShape(rules),
    /** Where the beneficiary collects the cash (`remit.lookup.collectionPoints`). */
    collectionPointId: text(),
    /** The PIN the beneficiary collects with; never logged by the SDK (bodies are not logged). */
    collectionPin: text(),
  })
}

/**
 * The bank transfer (BankTransferTransactionRequest, fields not published: rule Resources 8). The
 * common transaction fields are typed when present (a guess: every transfer shares them, and
 * `agentTransactionRef` is needed for reconciliation); every other member passes through as JSON.
 */
export function bankTransferSchema(rules: RemittanceRules) {
  return z.object(transactionShape(rules)).catchall(jsonMember())
}
