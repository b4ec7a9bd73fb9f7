import { HttpResponse, http } from 'msw'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { RemittanceError, RequestValidationError } from '../src/index.js'
import { beneficiary, createBeneficiary, record, setup } from './helpers.js'

describe('beneficiaries', () => {
  it('create answers 201 and the record is stored in the simulator', async () => {
    const { remit, simulator } = await setup()
    const { data, response } = await remit.beneficiaries.create(beneficiary).withResponse()
    expect(response.status).toBe(201)
    expect(record(data)).toMatchObject({ beneficiaryId: 'BEN000001', firstName: 'Fatmata' })
    expect(simulator.beneficiaries).toEqual([{ ...beneficiary, beneficiaryId: 'BEN000001' }])
  })

  it('an empty 201 is a success, resolving to undefined (rule Endpoints 1: no documented body)', async () => {
    const { remit, simulator } = await setup({}, { createdBody: 'empty' })
    const { data, response } = await remit.beneficiaries.create(beneficiary).withResponse()
    expect(data).toBeUndefined()
    expect(response.status).toBe(201)
    expect(response.rawBody).toBe('')
    expect(simulator.beneficiaries).toHaveLength(1)
  })

  it('is found by posid, by any value and by telephone', async () => {
    const { remit } = await setup()
    await createBeneficiary(remit)
    await createBeneficiary(remit, { firstName: 'Ibrahim', posid: 'POS-9', telephone: '+232 76 000 111', mobile: '' })
    const byPos = await remit.beneficiaries.getByPosId('POS-9')
    expect(Array.isArray(byPos) && byPos.map((b) => record(b).firstName)).toEqual(['Ibrahim'])
    const byAny = await remit.beneficiaries.search('conteh')
    expect(Array.isArray(byAny) && byAny.map((b) => record(b).firstName)).toEqual(['Fatmata', 'Ibrahim'])
    const byTel = await remit.beneficiaries.getByTelephone('23276000111')
    expect(Array.isArray(byTel) && byTel.map((b) => record(b).firstName)).toEqual(['Ibrahim'])
    expect(await remit.beneficiaries.getByPosId('POS-404')).toEqual([])
  })

  it('URL-encodes path variables, so "/", "?", "#" and spaces cannot change the route', async () => {
    const { remit, server } = await setup()
    await remit.beneficiaries.search('a/b?c#d e')
    await remit.beneficiaries.getByTelephone('+232 76')
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/beneficiaries/any/a%2Fb%3Fc%23d%20e',
      '/api/beneficiaries/telephone/%2B232%2076',
    ])
  })

  it('refuses "." and ".." as path variables: even encoded, URL parsers read them as dot segments', async () => {
    const { remit, server } = await setup()
    for (const value of ['.', '..']) {
      const error = await remit.beneficiaries.getByPosId(value).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(RequestValidationError)
      expect((error as RequestValidationError).issues[0]?.path).toBe('posid')
    }
    expect(server.requests).toHaveLength(0)
  })

  it('update merges the known fields and passes other members through (UpdateBeneficiaryRequest not shown)', async () => {
    const { remit, simulator, server } = await setup()
    const beneficiaryId = await createBeneficiary(remit)
    const updated = await remit.beneficiaries.update({ beneficiaryId, city: 'Kumasi', loyaltyTier: 2, tags: ['vip'] })
    expect(record(updated)).toMatchObject({ beneficiaryId, city: 'Kumasi', firstName: 'Fatmata' })
    expect(simulator.beneficiaries[0]?.city).toBe('Kumasi')
    expect(JSON.parse(server.requests.at(-1)?.body ?? '')).toEqual({
      beneficiaryId,
      city: 'Kumasi',
      loyaltyTier: 2,
      tags: ['vip'],
    })
  })

  it('update of an unknown beneficiary is a typed not_found error', async () => {
    const { remit } = await setup()
    const error = await remit.beneficiaries.update({ beneficiaryId: 'BEN999' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RemittanceError)
    expect((error as RemittanceError).status).toBe(404)
    expect((error as RemittanceError).reason).toBe('not_found')
  })

  it('the service, not the client, decides required fields: a missing name comes back as a 400 errors map', async () => {
    const { remit, server } = await setup()
    const error = (await remit.beneficiaries
      .create({ telephone: '+23276000111' })
      .catch((e: unknown) => e)) as RemittanceError
    expect(server.requests).toHaveLength(1)
    expect(error).toBeInstanceOf(RemittanceError)
    expect(error.status).toBe(400)
    expect(error.reason).toBe('bad_request')
    expect(error.fieldErrors).toEqual({
      firstName: ['The firstName field is required.'],
      lastName: ['The lastName field is required.'],
    })
    expect(error.message).toContain('firstName: The firstName field is required.')
  })

  it('a 201 with a body that is not JSON is an unreadable success, not a silent one', async () => {
    const { remit, server } = await setup()
    server.use(
      http.post(
        '*/api/beneficiaries',
        () => new HttpResponse('<html>ok</html>', { status: 201, headers: { 'content-type': 'text/html' } }),
      ),
    )
    const error = (await remit.beneficiaries.create(beneficiary).catch((e: unknown) => e)) as RemittanceError
    expect(error).toBeInstanceOf(RemittanceError)
    expect(error.reason).toBe('unreadable_response')
    expect(error.status).toBe(201)
    expect(error.rawBody).toBe('<html>ok</html>')
  })

  it('a bare JSON scalar is no beneficiary: unreadable without a schema, returned as parsed with one', async () => {
    const { remit, server } = await setup()
    server.use(
      http.post(
        '*/api/beneficiaries',
        () => new HttpResponse('42', { status: 201, headers: { 'content-type': 'application/json' } }),
      ),
    )
    const error = (await remit.beneficiaries.create(beneficiary).catch((e: unknown) => e)) as RemittanceError
    expect(error).toBeInstanceOf(RemittanceError)
    expect(error.reason).toBe('unreadable_response')
    expect(error.status).toBe(201)
    expect(error.message).toContain('a JSON object (or no body) was expected, not a number; pass a schema')
    expect(await remit.beneficiaries.create(beneficiary, { schema: z.number() })).toBe(42)
  })
})
