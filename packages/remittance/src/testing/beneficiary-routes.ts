/** The simulated Beneficiaries endpoints (rules Endpoints 1–5). */

import { HttpResponse, type RequestHandler } from 'msw'
import type { SimulatorParts } from './routing.js'
import {
  BENEFICIARY_TYPES,
  onlyDigits,
  required,
  type SimulatedBeneficiary,
  stringFields,
  typeErrors,
} from './rules.js'

/**
 * Create needs `firstName`, `lastName` and `telephone` (a simulator guess); update names the
 * `beneficiaryId`; the finds answer every match (an empty list when none).
 */
export function beneficiaryRoutes({ state, answers, route, createdBody }: SimulatorParts): RequestHandler[] {
  const create = async (request: Request): Promise<Response> => {
    const body = await answers.body(request)
    if (body instanceof Response) return body
    const errors = { ...typeErrors(body, BENEFICIARY_TYPES), ...required(body, ['firstName', 'lastName', 'telephone']) }
    if (Object.keys(errors).length > 0) return answers.validation(errors)
    const record: SimulatedBeneficiary = { ...stringFields(body, BENEFICIARY_TYPES), beneficiaryId: state.next('BEN') }
    state.beneficiaries.push(record)
    if (createdBody === 'empty') return new HttpResponse(null, { status: 201 })
    return HttpResponse.json(record, { status: 201 })
  }

  const update = async (request: Request): Promise<Response> => {
    const body = await answers.body(request)
    if (body instanceof Response) return body
    const errors = {
      ...typeErrors(body, { ...BENEFICIARY_TYPES, beneficiaryId: 'string' }),
      ...required(body, ['beneficiaryId']),
    }
    if (Object.keys(errors).length > 0) return answers.validation(errors)
    const index = state.beneficiaries.findIndex((b) => b.beneficiaryId === body.beneficiaryId)
    const existing = state.beneficiaries[index]
    if (!existing) return answers.problem(404, 'Not Found', `No beneficiary ${String(body.beneficiaryId)}.`)
    const updated: SimulatedBeneficiary = { ...existing, ...stringFields(body, BENEFICIARY_TYPES) }
    state.beneficiaries[index] = updated
    return HttpResponse.json(updated)
  }

  return [
    route('post', '/api/beneficiaries', create),
    route('put', '/api/beneficiaries', update),
    route('get', '/api/beneficiaries/posid/:posid', (_r, params) =>
      HttpResponse.json(state.beneficiaries.filter((b) => b.posid === params.posid)),
    ),
    route('get', '/api/beneficiaries/any/:searchValue', (_r, params) => {
      const needle = (params.searchValue ?? '').toLowerCase()
      return HttpResponse.json(
        state.beneficiaries.filter((b) => Object.values(b).some((v) => v.toLowerCase().includes(needle))),
      )
    }),
    route('get', '/api/beneficiaries/telephone/:telephone', (_r, params) => {
      const digits = onlyDigits(params.telephone ?? '')
      return HttpResponse.json(
        state.beneficiaries.filter(
          (b) => digits !== '' && (onlyDigits(b.telephone ?? '') === digits || onlyDigits(b.mobile ?? '') === digits),
        ),
      )
    }),
  ]
}
