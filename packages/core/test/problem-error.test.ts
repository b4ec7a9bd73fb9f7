/** The one ProblemDetails error of core: one reason vocabulary, package hints, the answer in words. */

import { ApiError, ProblemDetailsError } from '@paywire/core'
import { checkResponse, problemReason, safe, unsentOnly } from '@paywire/core/engine'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'

const request = { operation: 'things.create', method: 'POST', url: 'https://svc.example/api/things', retry: unsentOnly }

function response(status: number, body: unknown, contentType = 'application/problem+json') {
  const rawBody = typeof body === 'string' ? body : JSON.stringify(body)
  return {
    status,
    headers: { 'content-type': contentType },
    requestId: undefined,
    rawBody,
    attempts: 1,
    json: typeof body === 'string' ? undefined : body,
  }
}

describe('problemReason: one row per status', () => {
  it.each([
    [400, 'bad_request'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [409, 'conflict'],
    [422, 'unprocessable'],
    [429, 'rate_limited'],
    [502, 'upstream_failure'],
    [500, 'server_error'],
    [503, 'server_error'],
    [302, 'unexpected_redirect'],
    [304, 'unexpected_redirect'],
    [101, 'unexpected_status'],
    [418, 'http_error'],
    [200, 'http_error'],
  ])('%i → %s', (status, reason) => {
    expect(problemReason(status)).toBe(reason)
  })
})

describe('ProblemDetailsError', () => {
  it('reads the record, keeps extensions, and says what happened with the package hint', () => {
    const problem = {
      type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
      title: 'One or more validation errors occurred.',
      status: 400,
      traceId: '00-abc-01',
      errors: { amount: ['must be > 0'] },
    }
    const error = new ProblemDetailsError(
      { request, response: response(400, problem) },
      { bad_request: 'Check the body.' },
    )
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({
      reason: 'bad_request',
      code: problem.type,
      title: problem.title,
      traceId: '00-abc-01',
      fieldErrors: { amount: ['must be > 0'] },
      isNotFound: false,
      isAuthError: false,
      outcomeUnknown: false,
    })
    expect(error.message).toBe(
      'things.create: the service refused the request (HTTP 400). Check the body. One or more validation errors occurred. — amount: must be > 0.',
    )
  })

  it('a 5xx to an operation that acts is an unknown outcome; to a safe one it is not', () => {
    const html = response(503, '<html>busy</html>', 'text/html')
    expect(new ProblemDetailsError({ request, response: html })).toMatchObject({
      reason: 'server_error',
      outcomeUnknown: true,
      problem: undefined,
    })
    expect(new ProblemDetailsError({ request: { ...request, retry: safe }, response: html }).outcomeUnknown).toBe(false)
  })

  it('a 2xx the SDK cannot use names what is wrong, or lists where it failed the schema', async () => {
    const unreadable = new ProblemDetailsError({
      request,
      response: response(200, 'not json', 'text/plain'),
      reason: 'unreadable_response',
      problemWithAnswer: 'it is not JSON',
    })
    expect(unreadable.message).toMatch(
      /^things\.create: the success answer \(HTTP 200\) could not be read: it is not JSON\./,
    )
    expect(unreadable.outcomeUnknown).toBe(true)

    const checked = await checkResponse(z.object({ id: z.number() }), { id: 'x' })
    expect(checked.ok).toBe(false)
    const issues = checked.ok ? [] : checked.issues
    const mismatch = new ProblemDetailsError({
      request,
      response: response(200, { id: 'x' }),
      reason: 'response_schema_mismatch',
      issues,
    })
    expect(mismatch.issues).toEqual([{ path: 'id', message: expect.stringContaining('expected number') }])
    expect(mismatch.message).toContain('does not match the schema you passed: id: ')
  })

  it('checkResponse gives the parsed value when the schema holds', () => {
    expect(checkResponse(z.object({ id: z.coerce.number() }), { id: '7' })).toEqual({ ok: true, data: { id: 7 } })
  })
})
