/** Beneficiaries (rules Endpoints 1–5): one row per endpoint, which is also its method. */

import type { Reconciliation } from '@paywire/core'
import {
  type AnswerDecoder,
  defineOperation,
  type EndpointParams,
  listAnswer,
  reconcileRule,
  recordAnswer,
  resource,
  type SentRequest,
  safe,
  unsentOnly,
} from '@paywire/core/engine'
import { BENEFICIARY_KINDS, type Beneficiary } from './results.js'
import { beneficiaryCreateSchema, beneficiaryUpdateSchema, openBodyIssues, type RemittanceRules } from './schemas.js'

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
  /**
   * `POST /api/beneficiaries` (CreateBeneficiaryRequest, rule Resources 1). Resolves with the stored
   * beneficiary and its `beneficiaryId`, or `undefined` when the 201 has no body (rules Endpoints 1, Platform 12).
   */
  create: defineOperation({
    name: 'beneficiaries.create',
    method: 'POST',
    path: '/api/beneficiaries',
    params: beneficiaryCreateSchema,
    retry: unsentOnly,
    reconcile: byPosId,
    decode: beneficiary,
  }),
  /** `PUT /api/beneficiaries` (UpdateBeneficiaryRequest, fields not published: known fields typed, others pass; rule Resources 8). */
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
  /** `GET /api/beneficiaries/posid/{posid}`: the beneficiaries with this `posid` (rule Platform 12). */
  getByPosId: findRow('getByPosId', '/api/beneficiaries/posid/{posid}'),
  /** `GET /api/beneficiaries/any/{searchValue}`: search on any field (rule Platform 12). */
  search: findRow('search', '/api/beneficiaries/any/{searchValue}'),
  /** `GET /api/beneficiaries/telephone/{telephone}` (rule Platform 12). */
  getByTelephone: findRow('getByTelephone', '/api/beneficiaries/telephone/{telephone}'),
}

/** `remit.beneficiaries`: register, update and find beneficiaries; each method is one row of `BENEFICIARIES`. */
export class Beneficiaries extends resource<RemittanceRules, typeof BENEFICIARIES>(BENEFICIARIES) {}

/**
 * Body of `POST /api/beneficiaries` (CreateBeneficiaryRequest): all fields are strings (rule
 * Resources 1), all optional (the service publishes no required flags, rule Resources 7).
 */
export interface BeneficiaryFields extends EndpointParams<typeof BENEFICIARIES.create> {}

/** Body of `POST /api/beneficiaries` (CreateBeneficiaryRequest). */
export type BeneficiariesCreateParams = BeneficiaryFields

/**
 * Body of `PUT /api/beneficiaries`: the beneficiary fields typed when present, every other member
 * passed through as JSON (UpdateBeneficiaryRequest's fields are not published, rule Resources 8).
 */
export interface BeneficiariesUpdateParams extends EndpointParams<typeof BENEFICIARIES.update> {}
