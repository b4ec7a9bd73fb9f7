/**
 * The simulated Beneficiaries endpoints (rules Endpoints 1–5), and one example call of each (the
 * endpoint checklist's).
 */

import type { EndpointExamples } from '@paywire/core/engine'
import { HttpResponse, type RequestHandler } from 'msw'
import type { Remittance } from '../client.js'
import type { BENEFICIARIES } from '../resources/beneficiaries.js'
import type { ExampleSetup, SimulatorParts } from './routing.js'
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

/** The beneficiary every example registers. */
const BENEFICIARY = {
  linkedRemitterId: 'REM-1',
  firstName: 'Fatmata',
  lastName: 'Conteh',
  address1: '12 Siaka Stevens Street',
  city: 'Freetown',
  country: 'GH',
  nationality: 'SL',
  telephone: '+233 24 555 0101',
  posid: 'POS-7',
  mobile: '+233245550101',
  idDetails: 'PASSPORT P1234567',
} as const

/** A beneficiary registered on the simulator, by its id. */
export async function beneficiaryId(client: Remittance): Promise<string> {
  const created = await client.beneficiaries.create(BENEFICIARY)
  if (created?.beneficiaryId == null) throw new Error('the simulator answered the create without a beneficiaryId')
  return String(created.beneficiaryId)
}

/**
 * One example per row of `BENEFICIARIES` (the endpoint checklist's): each the argument list of its
 * method, answered with success.
 */
export const BENEFICIARY_EXAMPLES: EndpointExamples<typeof BENEFICIARIES, ExampleSetup> = {
  create: () => [BENEFICIARY],
  // With its posid: the key a beneficiary write is reconciled by (an update without one carries none).
  update: async ({ client }) => [
    { beneficiaryId: await beneficiaryId(client), posid: BENEFICIARY.posid, city: 'Kumasi' },
  ],
  getByPosId: async ({ client }) => {
    await beneficiaryId(client)
    return [BENEFICIARY.posid]
  },
  search: async ({ client }) => {
    await beneficiaryId(client)
    return ['Conteh']
  },
  getByTelephone: async ({ client }) => {
    await beneficiaryId(client)
    return [BENEFICIARY.telephone]
  },
}
