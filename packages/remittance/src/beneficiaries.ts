/** Beneficiaries: register, update and find the people money is sent to (spec Endpoints, rows 1–5). */

import { type ApiPromise, safe, unsentOnly } from '@paywire/core'
import type { OperationRow, OperationRunner, RemittanceCallOptions, ResultOf, ResultSchema } from './operation.js'
import {
  type BeneficiariesCreateParams,
  type BeneficiariesUpdateParams,
  beneficiaryCreateSchema,
  beneficiaryUpdateSchema,
} from './schemas.js'

/** One row per endpoint. Writes are `unsent-only`: a repeated create could register a beneficiary twice. */
export const beneficiaryOperations = {
  create: {
    name: 'beneficiaries.create',
    method: 'POST',
    path: '/api/beneficiaries',
    body: beneficiaryCreateSchema,
    retry: unsentOnly,
  },
  update: {
    name: 'beneficiaries.update',
    method: 'PUT',
    path: '/api/beneficiaries',
    body: beneficiaryUpdateSchema,
    retry: unsentOnly,
  },
  getByPosId: {
    name: 'beneficiaries.getByPosId',
    method: 'GET',
    path: '/api/beneficiaries/posid/{posid}',
    retry: safe,
  },
  search: { name: 'beneficiaries.search', method: 'GET', path: '/api/beneficiaries/any/{searchValue}', retry: safe },
  getByTelephone: {
    name: 'beneficiaries.getByTelephone',
    method: 'GET',
    path: '/api/beneficiaries/telephone/{telephone}',
    retry: safe,
  },
} as const satisfies Record<string, OperationRow>

/** `remit.beneficiaries`: each method is one row of `beneficiaryOperations`. */
export class Beneficiaries {
  readonly #run: OperationRunner

  /** @internal */
  constructor(run: OperationRunner) {
    this.#run = run
  }

  /** `POST /api/beneficiaries` (CreateBeneficiaryRequest; 201, body undocumented, often empty). */
  create<S extends ResultSchema | undefined = undefined>(
    body: BeneficiariesCreateParams,
    options?: RemittanceCallOptions<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(beneficiaryOperations.create, { body }, options)
  }

  /** `PUT /api/beneficiaries` (UpdateBeneficiaryRequest, fields not shown: known fields typed, others pass). */
  update<S extends ResultSchema | undefined = undefined>(
    body: BeneficiariesUpdateParams,
    options?: RemittanceCallOptions<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(beneficiaryOperations.update, { body }, options)
  }

  /** `GET /api/beneficiaries/posid/{posid}`. */
  getByPosId<S extends ResultSchema | undefined = undefined>(
    posid: string,
    options?: RemittanceCallOptions<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(beneficiaryOperations.getByPosId, { pathValue: posid }, options)
  }

  /** `GET /api/beneficiaries/any/{searchValue}`: search on any field. */
  search<S extends ResultSchema | undefined = undefined>(
    searchValue: string,
    options?: RemittanceCallOptions<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(beneficiaryOperations.search, { pathValue: searchValue }, options)
  }

  /** `GET /api/beneficiaries/telephone/{telephone}`. */
  getByTelephone<S extends ResultSchema | undefined = undefined>(
    telephone: string,
    options?: RemittanceCallOptions<S>,
  ): ApiPromise<ResultOf<S>> {
    return this.#run.call(beneficiaryOperations.getByTelephone, { pathValue: telephone }, options)
  }
}
