/** Beneficiaries (rules Endpoints 1–5): one row per endpoint, which is also its method. */

import type { ApiPromise, OperationOptions, Reconciliation, ResponseSchema } from '@paywire/core'
import type { FieldKinds } from '@paywire/core/engine'
import {
  type AnswerDecoder,
  defineOperation,
  listAnswer,
  reconcileRule,
  recordAnswer,
  resource,
  type SentRequest,
  safe,
  unsentOnly,
} from '@paywire/core/engine'
import * as z from '@paywire/core/zod'
import { jsonMember, openBodyIssues, type RemittanceRules, text } from '../fields.js'

// ---- results ---------------------------------------------------------------------------------
// The service documents no success body (rule Endpoints 24): each type names the fields the SDK
// expects (rules Platform 12–18) as optional members, plus an open record for the rest; a field's
// JSON kind follows rule Platform 11 (identifiers, amounts and enumerated values may be strings or
// numbers, any field may be `null`), checked on arrival by the decoder (rule Platform 10). Pass a
// `schema` to check and type an answer of another shape.

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

// ---- params schemas (the rows build them on their first call) ----------------------------------

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
  return z.catchall(z.object(beneficiaryShape()), jsonMember())
}

/** The field names of CreateBeneficiaryRequest, in the service's order (rule Resources 1). */
export const BENEFICIARY_FIELDS: (keyof BeneficiaryFields)[] = [
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

/**
 * A beneficiary write whose outcome is unknown is checked by hand under its `posid`: the lookup lists
 * every beneficiary of that posid, so `reconcile` answers `not_reconcilable` (docs/reconciliation.md).
 */
const byPosId = reconcileRule(['posid'], ({ wire }: SentRequest): Reconciliation | undefined => {
  const posid = wire?.['posid']
  if (typeof posid !== 'string') return undefined
  return {
    key: 'posid',
    value: posid,
    lookup: `a check by hand of remit.beneficiaries.getByPosId(${JSON.stringify(posid)}) (it lists every beneficiary of that posid)`,
  }
})

const beneficiary = recordAnswer<Beneficiary>(BENEFICIARY_KINDS)
const beneficiaries: AnswerDecoder<readonly Beneficiary[]> = listAnswer<Beneficiary>(BENEFICIARY_KINDS)

/** A find by one path value: a `safe` GET that answers a list of beneficiaries. */
function findRow<const Path extends string>(method: string, path: Path) {
  return defineOperation<RemittanceRules, never, readonly Beneficiary[] | undefined, Path>({
    name: `beneficiaries.${method}`,
    method: 'GET',
    path,
    retry: safe,
    decode: beneficiaries,
  })
}

/**
 * The five Beneficiaries endpoints, one row each; each row is also the `remit.beneficiaries` method
 * of its name. Writes are `unsent-only`: a repeated create could register a beneficiary twice.
 */
export const BENEFICIARIES = {
  create: defineOperation({
    name: 'beneficiaries.create',
    method: 'POST',
    path: '/api/beneficiaries',
    params: beneficiaryCreateSchema,
    retry: unsentOnly,
    reconcile: byPosId,
    decode: beneficiary,
  }),
  update: defineOperation({
    name: 'beneficiaries.update',
    method: 'PUT',
    path: '/api/beneficiaries',
    params: beneficiaryUpdateSchema,
    precheck: openBodyIssues,
    retry: unsentOnly,
    reconcile: byPosId,
    decode: beneficiary,
  }),
  getByPosId: findRow('getByPosId', '/api/beneficiaries/posid/{posid}'),
  search: findRow('search', '/api/beneficiaries/any/{searchValue}'),
  getByTelephone: findRow('getByTelephone', '/api/beneficiaries/telephone/{telephone}'),
}

/**
 * `remit.beneficiaries`: register, update and find beneficiaries, one method per endpoint. Writes
 * are never retried once sent: a repeated create could register a beneficiary twice. Every method
 * also takes a `schema` in its options, which checks the answer and types the result with it.
 */
export interface Beneficiaries {
  /**
   * `POST /api/beneficiaries` (CreateBeneficiaryRequest, rule Resources 1). Resolves with the stored
   * beneficiary and its `beneficiaryId`, or `undefined` when the 201 has no body (rules Endpoints 1, Platform 12).
   */
  create(params: BeneficiariesCreateParams, options?: OperationOptions): ApiPromise<Beneficiary | undefined>
  create<T>(params: BeneficiariesCreateParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `PUT /api/beneficiaries` (UpdateBeneficiaryRequest, fields not published: known fields typed, others pass; rule Resources 8). */
  update(params: BeneficiariesUpdateParams, options?: OperationOptions): ApiPromise<Beneficiary | undefined>
  update<T>(params: BeneficiariesUpdateParams, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `GET /api/beneficiaries/posid/{posid}`: the beneficiaries with this `posid` (rule Platform 12). */
  getByPosId(posid: string | number, options?: OperationOptions): ApiPromise<readonly Beneficiary[] | undefined>
  getByPosId<T>(posid: string | number, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `GET /api/beneficiaries/any/{searchValue}`: search on any field (rule Platform 12). */
  search(searchValue: string | number, options?: OperationOptions): ApiPromise<readonly Beneficiary[] | undefined>
  search<T>(searchValue: string | number, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
  /** `GET /api/beneficiaries/telephone/{telephone}` (rule Platform 12). */
  getByTelephone(telephone: string | number, options?: OperationOptions): ApiPromise<readonly Beneficiary[] | undefined>
  getByTelephone<T>(telephone: string | number, options: OperationOptions<ResponseSchema<T>>): ApiPromise<T>
}

/** `Beneficiaries` made from the rows of `BENEFICIARIES` (which must match it: see `resource`). */
export class BeneficiariesResource extends resource<RemittanceRules, typeof BENEFICIARIES, Beneficiaries>(
  BENEFICIARIES,
) {}

// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof BENEFICIARIES.create>
/**
 * Body of `POST /api/beneficiaries` (CreateBeneficiaryRequest): all fields are strings (rule
 * Resources 1), all optional (the service publishes no required flags, rule Resources 7).
 */
export interface BeneficiaryFields {
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

/** Body of `POST /api/beneficiaries` (CreateBeneficiaryRequest). */
export type BeneficiariesCreateParams = BeneficiaryFields

// Written out by scripts/public-types.mjs (edit the rows, then run it) from: EndpointParams<typeof BENEFICIARIES.update>
/**
 * Body of `PUT /api/beneficiaries`: the beneficiary fields typed when present, every other member
 * passed through as JSON (UpdateBeneficiaryRequest's fields are not published, rule Resources 8).
 */
export interface BeneficiariesUpdateParams extends BeneficiaryFields {
  [key: string]: unknown
}
