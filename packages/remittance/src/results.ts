/**
 * The result types of every remittance operation, and the field kinds their decoders check. The
 * service documents no success body (rule Endpoints 24), so each type names the fields the SDK
 * expects (rules Platform 12–18: assumptions, and what the package's simulator answers) as optional
 * members, plus an open record for the rest. A field's JSON kind follows rule Platform 11: identifiers, amounts and enumerated values
 * may be strings or numbers, and any field may be `null`. The decoders check those kinds on arrival
 * (rule Platform 10); pass a `schema` to check and type an answer of another shape.
 */

import type { FieldKinds } from '@paywire/core/engine'

// ---- beneficiaries ------------------------------------------------------------------------------

/** A beneficiary as the service answers it: its id and the CreateBeneficiaryRequest fields (rule Platform 12). */
export interface Beneficiary {
  /** The service's id of the beneficiary, which transfers send as `beneficiaryId` (rule Platform 12). */
  readonly beneficiaryId?: string | number | null
  /** As sent; every beneficiary field is a string (rule Resources 1). */
  readonly linkedRemitterId?: string | null
  /** As sent (rule Resources 1). */
  readonly firstName?: string | null
  /** As sent (rule Resources 1). */
  readonly lastName?: string | null
  /** As sent (rule Resources 1). */
  readonly address1?: string | null
  /** As sent (rule Resources 1). */
  readonly city?: string | null
  /** As sent (rule Resources 1). */
  readonly state?: string | null
  /** As sent (rule Resources 1). */
  readonly postcode?: string | null
  /** As sent (rule Resources 1). */
  readonly country?: string | null
  /** As sent (rule Resources 1). */
  readonly nationality?: string | null
  /** As sent; `beneficiaries.getByTelephone` searches it (rule Resources 1). */
  readonly telephone?: string | null
  /** As sent; `beneficiaries.getByPosId` searches it (rule Resources 1). */
  readonly posid?: string | null
  /** As sent (rule Resources 1). */
  readonly mobile?: string | null
  /** As sent (rule Resources 1). */
  readonly idDetails?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const BENEFICIARY_KINDS: FieldKinds<Beneficiary> = {
  beneficiaryId: 'string or number',
  linkedRemitterId: 'string',
  firstName: 'string',
  lastName: 'string',
  address1: 'string',
  city: 'string',
  state: 'string',
  postcode: 'string',
  country: 'string',
  nationality: 'string',
  telephone: 'string',
  posid: 'string',
  mobile: 'string',
  idDetails: 'string',
}

/** @deprecated Use `Beneficiary | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type BeneficiariesCreateResult = Beneficiary | undefined
/** @deprecated Use `Beneficiary | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type BeneficiariesUpdateResult = Beneficiary | undefined
/** @deprecated Use `readonly Beneficiary[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type BeneficiariesGetByPosIdResult = readonly Beneficiary[] | undefined
/** @deprecated Use `readonly Beneficiary[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type BeneficiariesSearchResult = readonly Beneficiary[] | undefined
/** @deprecated Use `readonly Beneficiary[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type BeneficiariesGetByTelephoneResult = readonly Beneficiary[] | undefined

// ---- lookups ------------------------------------------------------------------------------------

/** A rate quote (rule Platform 16): what the beneficiary receives for an SLE amount, and the fees. */
export interface RateQuote {
  /** The currency sent: `SLE` (rule Platform 4). */
  readonly sourceCurrency?: string | null
  /** The currency the beneficiary receives, ISO 4217 (`GHS`). */
  readonly destCurrency?: string | null
  /** As sent in the request, when it was. */
  readonly destinationCountry?: string | null
  /** As sent in the request, when it was. */
  readonly serviceType?: string | number | null
  /** Which amount the quote started from: `SOURCE` or `DESTINATION` (rule Platform 1). */
  readonly amountType?: string | number | null
  /** Units of `destCurrency` per 1 SLE. */
  readonly rate?: string | number | null
  /** The amount sent, in SLE (at most 2 decimals, rule Platform 4). */
  readonly sendingAmountSLE?: string | number | null
  /** The amount received, in `destCurrency`. */
  readonly receivingAmountFX?: string | number | null
  /** The fees, in SLE. */
  readonly fees?: string | number | null
  /** What the sender pays in SLE: the amount sent plus the fees. */
  readonly totalAmountSLE?: string | number | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const RATE_QUOTE_KINDS: FieldKinds<RateQuote> = {
  sourceCurrency: 'string',
  destCurrency: 'string',
  destinationCountry: 'string',
  serviceType: 'string or number',
  amountType: 'string or number',
  rate: 'string or number',
  sendingAmountSLE: 'string or number',
  receivingAmountFX: 'string or number',
  fees: 'string or number',
  totalAmountSLE: 'string or number',
}

/** The account a name enquiry found (rule Platform 18): whose name the bank holds for the number. */
export interface BankAccount {
  /** The bank, as sent. */
  readonly bankCode?: string | number | null
  /** The account number, as sent. */
  readonly accountNumber?: string | number | null
  /** The name the bank holds for the account: show it to the sender before a bank transfer. */
  readonly accountName?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const BANK_ACCOUNT_KINDS: FieldKinds<BankAccount> = {
  bankCode: 'string or number',
  accountNumber: 'string or number',
  accountName: 'string',
}

/** A destination country a transfer can go to (rule Platform 17). */
export interface DestinationCountry {
  /** ISO 3166 code (`GH`), as transfers send it in `destinationCountry`. */
  readonly countryCode?: string | null
  /** The country's name. */
  readonly countryName?: string | null
  /** The currency the beneficiary receives there, ISO 4217. */
  readonly currency?: string | null
  /** The transfer types offered there: `Account`, `Cash Collection`, `Mobile Transfer` (rule Platform 1). */
  readonly serviceTypes?: readonly (string | number)[] | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const DESTINATION_COUNTRY_KINDS: FieldKinds<DestinationCountry> = {
  countryCode: 'string',
  countryName: 'string',
  currency: 'string',
  serviceTypes: 'list of strings or numbers',
}

/** A bank abroad that receives bank transfers (rule Platform 17). */
export interface DeliveryBank {
  /** The bank's id, as a bank transfer sends it. */
  readonly bankId?: string | number | null
  /** The bank's name. */
  readonly bankName?: string | null
  /** The country of the bank, ISO 3166. */
  readonly countryCode?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const DELIVERY_BANK_KINDS: FieldKinds<DeliveryBank> = {
  bankId: 'string or number',
  bankName: 'string',
  countryCode: 'string',
}

/** A branch of a delivery bank (rule Platform 17). */
export interface DeliveryBankBranch {
  /** The branch's id. */
  readonly branchId?: string | number | null
  /** The bank it belongs to (`DeliveryBank.bankId`). */
  readonly bankId?: string | number | null
  /** The branch's name. */
  readonly branchName?: string | null
  /** The town of the branch. */
  readonly city?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const DELIVERY_BANK_BRANCH_KINDS: FieldKinds<DeliveryBankBranch> = {
  branchId: 'string or number',
  bankId: 'string or number',
  branchName: 'string',
  city: 'string',
}

/** An agent where a beneficiary collects cash (rule Platform 17). */
export interface CollectionPoint {
  /** Its id, as a cash collection sends it in `collectionPointId` (rule Resources 5). */
  readonly collectionPointId?: string | number | null
  /** The agent's name. */
  readonly name?: string | null
  /** The town of the agent. */
  readonly city?: string | null
  /** The country of the agent, ISO 3166. */
  readonly countryCode?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const COLLECTION_POINT_KINDS: FieldKinds<CollectionPoint> = {
  collectionPointId: 'string or number',
  name: 'string',
  city: 'string',
  countryCode: 'string',
}

/** A mobile money operator (rule Platform 17). */
export interface MobileOperator {
  /** Its id, as a mobile transfer sends it in `beneficiaryMobileTransferNetworkId` (rule Resources 4). */
  readonly networkId?: string | number | null
  /** The operator's or wallet's name. */
  readonly name?: string | null
  /** The country of the operator, ISO 3166. */
  readonly countryCode?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const MOBILE_OPERATOR_KINDS: FieldKinds<MobileOperator> = {
  networkId: 'string or number',
  name: 'string',
  countryCode: 'string',
}

/** What a mobile transfer credits on an operator: wallet, airtime… (rule Platform 17). */
export interface MobileOperatorCreditType {
  /** Its id, as a mobile transfer sends it in `beneficiaryMobileTransferNetworkCreditTypeId` (rule Resources 4). */
  readonly creditTypeId?: string | number | null
  /** The operator it belongs to (`MobileOperator.networkId`). */
  readonly networkId?: string | number | null
  /** The credit type's name (`Wallet`, `Airtime`). */
  readonly name?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const MOBILE_OPERATOR_CREDIT_TYPE_KINDS: FieldKinds<MobileOperatorCreditType> = {
  creditTypeId: 'string or number',
  networkId: 'string or number',
  name: 'string',
}

/** A local bank, as the name enquiry takes it (rule Platform 17). */
export interface Bank {
  /** The bank's code, as a name enquiry sends it. */
  readonly bankCode?: string | number | null
  /** The bank's name. */
  readonly bankName?: string | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const BANK_KINDS: FieldKinds<Bank> = { bankCode: 'string or number', bankName: 'string' }

/** The state of a transaction, as the status lookup answers it (rule Platform 15). */
export interface TransactionStatus {
  /** The reference confirm gave; `null` before confirm (rule Platform 2). */
  readonly referenceNumber?: string | number | null
  /** The id the transfer answered (rule Platform 2). */
  readonly transactionId?: string | number | null
  /** The idempotency key the transfer was sent with (rule Platform 5). */
  readonly agentTransactionRef?: string | null
  /** The platform's state: `ENTERED`, `AGENT_OK`, `PROCESSED`, `ABORTED`… (rule Platform 3). */
  readonly status?: string | number | null
  /** The amount sent, in SLE. */
  readonly amountSLE?: string | number | null
  /** The fees, in SLE. */
  readonly fees?: string | number | null
  /** The currency the beneficiary receives, ISO 4217. */
  readonly destCurrency?: string | null
  /** The amount the beneficiary receives, in `destCurrency`. */
  readonly receivingAmountFX?: string | number | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const TRANSACTION_STATUS_KINDS: FieldKinds<TransactionStatus> = {
  referenceNumber: 'string or number',
  transactionId: 'string or number',
  agentTransactionRef: 'string',
  status: 'string or number',
  amountSLE: 'string or number',
  fees: 'string or number',
  destCurrency: 'string',
  receivingAmountFX: 'string or number',
}

/** @deprecated Use `RateQuote | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupRatesResult = RateQuote | undefined
/** @deprecated Use `BankAccount | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupNameEnquiryResult = BankAccount | undefined
/** @deprecated Use `BankAccount | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupNameEnquiryLookupResult = BankAccount | undefined
/** @deprecated Use `readonly DestinationCountry[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupDestinationCountriesResult = readonly DestinationCountry[] | undefined
/** @deprecated Use `readonly DeliveryBank[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupDeliveryBanksResult = readonly DeliveryBank[] | undefined
/** @deprecated Use `readonly DeliveryBankBranch[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupDeliveryBankBranchesResult = readonly DeliveryBankBranch[] | undefined
/** @deprecated Use `readonly CollectionPoint[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupCollectionPointsResult = readonly CollectionPoint[] | undefined
/** @deprecated Use `readonly MobileOperator[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupMobileOperatorsResult = readonly MobileOperator[] | undefined
/** @deprecated Use `readonly MobileOperatorCreditType[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupMobileOperatorCreditTypesResult = readonly MobileOperatorCreditType[] | undefined
/** @deprecated Use `readonly Bank[] | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupBanksResult = readonly Bank[] | undefined
/** @deprecated Use `TransactionStatus`, which the method's signature names; this per-method alias goes in 1.0. */
export type LookupTransactionStatusResult = TransactionStatus

// ---- transactions -------------------------------------------------------------------------------

/** What a transfer answers (rule Platform 13): the id confirm takes, and the amounts booked. */
export interface Transfer {
  /** The transaction's id: pass it to `transactions.confirm` (rule Platform 2). */
  readonly transactionId?: string | number | null
  /** The idempotency key the transfer was sent with, yours or generated (rule Platform 5). */
  readonly agentTransactionRef?: string | null
  /** The platform's state, `ENTERED` until confirmed (rule Platform 3). */
  readonly status?: string | number | null
  /** `Mobile Transfer`, `Cash Collection` or `Account` (rule Platform 1). */
  readonly transType?: string | number | null
  /** The amount sent, in SLE. */
  readonly amountSLE?: string | number | null
  /** The fees, in SLE. */
  readonly fees?: string | number | null
  /** The currency the beneficiary receives, ISO 4217. */
  readonly destCurrency?: string | null
  /** The amount the beneficiary receives, in `destCurrency`. */
  readonly receivingAmountFX?: string | number | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const TRANSFER_KINDS: FieldKinds<Transfer> = {
  transactionId: 'string or number',
  agentTransactionRef: 'string',
  status: 'string or number',
  transType: 'string or number',
  amountSLE: 'string or number',
  fees: 'string or number',
  destCurrency: 'string',
  receivingAmountFX: 'string or number',
}

/** What confirm answers (rule Platform 14): the reference the status lookup takes. */
export interface Confirmation {
  /** The transaction confirmed (rule Platform 2). */
  readonly transactionId?: string | number | null
  /** The reference to pass to `lookup.transactionStatus` (rule Platform 2). */
  readonly referenceNumber?: string | number | null
  /** The platform's state after confirm, e.g. `AGENT_OK` (rule Platform 3). */
  readonly status?: string | number | null
  /** Members the SDK does not know of, as the service sent them. */
  readonly [field: string]: unknown
}

export const CONFIRMATION_KINDS: FieldKinds<Confirmation> = {
  transactionId: 'string or number',
  referenceNumber: 'string or number',
  status: 'string or number',
}

/** @deprecated Use `Transfer | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsMobileTransferResult = Transfer | undefined
/** @deprecated Use `Transfer | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsCashCollectionResult = Transfer | undefined
/** @deprecated Use `Transfer | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsBankTransferResult = Transfer | undefined
/** @deprecated Use `Confirmation | undefined`, which the method's signature names; this per-method alias goes in 1.0. */
export type TransactionsConfirmResult = Confirmation | undefined
