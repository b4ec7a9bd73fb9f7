/** Beneficiaries: register, update and find the people money is sent to (spec Endpoints, rows 1–5). */

import {
  type AnswerSchema,
  type ApiPromise,
  defineOperation,
  jsonAnswer,
  type OperationClient,
  type OperationOptions,
  type Reconciliation,
  type ResultOf,
  type SentRequest,
  safe,
  unsentOnly,
} from '@paywire/core'
import {
  type BeneficiariesCreateParams,
  type BeneficiariesUpdateParams,
  beneficiaryCreateSchema,
  beneficiaryUpdateSchema,
  type RemittanceResult,
  type SleBodySchemas,
} from './schemas.js'

/** A beneficiary write whose outcome is unknown is read back by its `posid`. */
function byPosId({ wire }: SentRequest): Reconciliation | undefined {
  const posid = wire?.['posid']
  if (typeof posid !== 'string') return undefined
  return { key: 'posid', value: posid, lookup: `remit.beneficiaries.getByPosId(${JSON.stringify(posid)})` }
}

/** One row per endpoint. Writes are `unsent-only`: a repeated create could register a beneficiary twice. */
export const beneficiaryOperations = {
  create: defineOperation({
    name: 'beneficiaries.create',
    method: 'POST',
    path: '/api/beneficiaries',
    params: beneficiaryCreateSchema,
    retry: unsentOnly,
    reconcile: byPosId,
    decode: jsonAnswer<RemittanceResult>,
  }),
  update: defineOperation({
    name: 'beneficiaries.update',
    method: 'PUT',
    path: '/api/beneficiaries',
    params: beneficiaryUpdateSchema,
    retry: unsentOnly,
    reconcile: byPosId,
    decode: jsonAnswer<RemittanceResult>,
  }),
  getByPosId: defineOperation({
    name: 'beneficiaries.getByPosId',
    method: 'GET',
    path: '/api/beneficiaries/posid/{posid}',
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
  search: defineOperation({
    name: 'beneficiaries.search',
    method: 'GET',
    path: '/api/beneficiaries/any/{searchValue}',
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
  getByTelephone: defineOperation({
    name: 'beneficiaries.getByTelephone',
    method: 'GET',
    path: '/api/beneficiaries/telephone/{telephone}',
    retry: safe,
    decode: jsonAnswer<RemittanceResult>,
  }),
}

/** `remit.beneficiaries`: each method is one row of `beneficiaryOperations`. */
export class Beneficiaries {
  readonly #ops: OperationClient<SleBodySchemas>

  /** @internal */
  constructor(ops: OperationClient<SleBodySchemas>) {
    this.#ops = ops
  }

  /** `POST /api/beneficiaries` (CreateBeneficiaryRequest; 201, body undocumented, often empty). */
  create<S extends AnswerSchema | undefined = undefined>(
    body: BeneficiariesCreateParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(beneficiaryOperations.create, { body }, options)
  }

  /** `PUT /api/beneficiaries` (UpdateBeneficiaryRequest, fields not shown: known fields typed, others pass). */
  update<S extends AnswerSchema | undefined = undefined>(
    body: BeneficiariesUpdateParams,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(beneficiaryOperations.update, { body }, options)
  }

  /** `GET /api/beneficiaries/posid/{posid}`. */
  getByPosId<S extends AnswerSchema | undefined = undefined>(
    posid: string,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(beneficiaryOperations.getByPosId, { path: { posid } }, options)
  }

  /** `GET /api/beneficiaries/any/{searchValue}`: search on any field. */
  search<S extends AnswerSchema | undefined = undefined>(
    searchValue: string,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(beneficiaryOperations.search, { path: { searchValue } }, options)
  }

  /** `GET /api/beneficiaries/telephone/{telephone}`. */
  getByTelephone<S extends AnswerSchema | undefined = undefined>(
    telephone: string,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, RemittanceResult>> {
    return this.#ops.call(beneficiaryOperations.getByTelephone, { path: { telephone } }, options)
  }
}
