import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { HttpClient, safe, jsonBody, ApiError, type ResponseHandler } from '@paywire/core'
import { startMockServer } from '@paywire/core/testing'

const handler: ResponseHandler<unknown> = {
  decode: (r) => r.json,
  toError: (r, req) => new ApiError({ ...req, response: r, body: r.json, message: `HTTP ${r.status}` }),
}

describe('smoke', () => {
  it('sends JSON through undici to an msw handler on loopback', async () => {
    const server = await startMockServer([
      http.post('*/echo', async ({ request }) => HttpResponse.json({ got: await request.json() }, { headers: { 'x-request-id': 'r1' } })),
    ])
    const client = new HttpClient({ packageName: 'core', packageVersion: '0.0.0', options: {} })
    const { data, response } = await client
      .send({ operation: 'echo', method: 'POST', url: `${server.url}/echo`, body: jsonBody({ a: 1 }), retry: safe }, handler)
      .withResponse()
    expect(data).toEqual({ got: { a: 1 } })
    expect(response.requestId).toBe('r1')
    expect(await client.send({ operation: 'echo', method: 'POST', url: `${server.url}/echo`, body: jsonBody({ a: 2 }), retry: safe }, handler)).toEqual({ got: { a: 2 } })
    expect(server.requests[0]?.headers['user-agent']).toMatch(/^paywire-core\/0\.0\.0 node\//)
    await client.close()
    await server.close()
  })
})
