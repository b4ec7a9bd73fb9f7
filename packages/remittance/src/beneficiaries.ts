/** Beneficiaries: register, update and find the people money is sent to (rules Endpoints 1–5). */

import {
  type AnswerSchema,
  type ApiPromise,
  defineOperation,
  listAnswer,
  type OperationClient,
  type OperationOptions,
  type Reconciliation,
  type ResultOf,
  reconcileRule,
  recordAnswer,
  type SentRequest,
  safe,
  unsentOnly,
} from '@paywire/core'
import {
  BENEFICIARY_KINDS,
  type BeneficiariesCreateResult,
  type BeneficiariesGetByPosIdResult,
  type BeneficiariesGetByTelephoneResult,
  type BeneficiariesSearchResult,
  type BeneficiariesUpdateResult,
  type Beneficiary,
} from './results.js'
import {
  type BeneficiariesCreateParams,
  type BeneficiariesUpdateParams,
  beneficiaryCreateSchema,
  beneficiaryUpdateSchema,
  type SleBodySchemas,
} from './schemas.js'

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
const beneficiaries = listAnswer<Beneficiary>(BENEFICIARY_KINDS)

/** One row per endpoint. Writes are `unsent-only`: a repeated create could register a beneficiary twice. */
export const beneficiaryOperations = {
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
    retry: unsentOnly,
    reconcile: byPosId,
    decode: beneficiary,
  }),
  getByPosId: defineOperation({
    name: 'beneficiaries.getByPosId',
    method: 'GET',
    path: '/api/beneficiaries/posid/{posid}',
    retry: safe,
    decode: beneficiaries,
  }),
  search: defineOperation({
    name: 'beneficiaries.search',
    method: 'GET',
    path: '/api/beneficiaries/any/{searchValue}',
    retry: safe,
    decode: beneficiaries,
  }),
  getByTelephone: defineOperation({
    name: 'beneficiaries.getByTelephone',
    method: 'GET',
    path: '/api/beneficiaries/telephone/{telephone}',
    retry: safe,
    decode: beneficiaries,
  }),
}

/** `remit.beneficiaries`: each method is one row of `beneficiaryOperations`. */
export class Beneficiaries {
  readonly #ops: OperationClient<SleBodySchemas>

  /** @internal */
  constructor(ops: OperationClient<SleBodySchemas>) {
    this.#ops = ops
  }

  /**
   * `POST /api/beneficiaries` (CreateBeneficiaryRequest, rule Resources 1). Resolves with the stored
   * beneficiary and its `beneficiaryId`, or `undefined` when the 201 has no body (rules Endpoints 1, Platform 12).
   */
  create<S extends AnswerSchema | undefined = undefined>(
    body: BeneficiariesCreateParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, BeneficiariesCreateResult>> {
    return this.#ops.call(beneficiaryOperations.create, { body }, options)
  }

  /** `PUT /api/beneficiaries` (UpdateBeneficiaryRequest, fields not published: known fields typed, others pass; rule Resources 8). */
  update<S extends AnswerSchema | undefined = undefined>(
    body: BeneficiariesUpdateParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, BeneficiariesUpdateResult>> {
    return this.#ops.call(beneficiaryOperations.update, { body }, options)
  }

  /** `GET /api/beneficiaries/posid/{posid}`: the beneficiaries with this `posid` (rule Platform 12). */
  getByPosId<S extends AnswerSchema | undefined = undefined>(
    posid: string,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, BeneficiariesGetByPosIdResult>> {
    return this.#ops.call(beneficiaryOperations.getByPosId, { path: { posid } }, options)
  }

  /** `GET /api/beneficiaries/any/{searchValue}`: search on any field (rule Platform 12). */
  search<S extends AnswerSchema | undefined = undefined>(
    searchValue: string,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, BeneficiariesSearchResult>> {
    return this.#ops.call(beneficiaryOperations.search, { path: { searchValue } }, options)
  }

  /** `GET /api/beneficiaries/telephone/{telephone}` (rule Platform 12). */
  getByTelephone<S extends AnswerSchema | undefined = undefined>(
    telephone: string,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, BeneficiariesGetByTelephoneResult>> {
    return this.#ops.call(beneficiaryOperations.getByTelephone, { path: { telephone } }, options)
  }
}
