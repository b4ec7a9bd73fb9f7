/** Beneficiaries (rules Endpoints 1–5): one row per endpoint, which is also its method. */

import type { AnswerSchema, ApiPromise, OperationOptions, Reconciliation } from '@paywire/core'
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
import { BENEFICIARY_KINDS, type Beneficiary } from '../results.js'
import { beneficiaryCreateSchema, beneficiaryUpdateSchema, openBodyIssues, type RemittanceRules } from '../schemas.js'

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
  create<T>(params: BeneficiariesCreateParams, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `PUT /api/beneficiaries` (UpdateBeneficiaryRequest, fields not published: known fields typed, others pass; rule Resources 8). */
  update(params: BeneficiariesUpdateParams, options?: OperationOptions): ApiPromise<Beneficiary | undefined>
  update<T>(params: BeneficiariesUpdateParams, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `GET /api/beneficiaries/posid/{posid}`: the beneficiaries with this `posid` (rule Platform 12). */
  getByPosId(posid: string | number, options?: OperationOptions): ApiPromise<readonly Beneficiary[] | undefined>
  getByPosId<T>(posid: string | number, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `GET /api/beneficiaries/any/{searchValue}`: search on any field (rule Platform 12). */
  search(searchValue: string | number, options?: OperationOptions): ApiPromise<readonly Beneficiary[] | undefined>
  search<T>(searchValue: string | number, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
  /** `GET /api/beneficiaries/telephone/{telephone}` (rule Platform 12). */
  getByTelephone(telephone: string | number, options?: OperationOptions): ApiPromise<readonly Beneficiary[] | undefined>
  getByTelephone<T>(telephone: string | number, options: OperationOptions<AnswerSchema<T>>): ApiPromise<T>
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
export interface BeneficiariesUpdateParams {
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
  [key: string]: unknown
}
