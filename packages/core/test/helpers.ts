import { ApiError, type ClientOptions } from '@paywire/core'
import { HttpClient, type HttpRequest, type ResponseHandler, safe } from '@paywire/core/engine'

/** A service-like handler: JSON result on 2xx, ApiError with the status otherwise. */
export const jsonHandler: ResponseHandler<unknown> = {
  decode: (response) => response.json ?? response.rawBody,
  toError: (response, request) =>
    new ApiError({
      ...request,
      response,
      body: response.json,
      code: response.status,
      message: `HTTP ${response.status}`,
    }),
}

export function makeClient(options: ClientOptions = {}): HttpClient {
  return new HttpClient({ packageName: 'core-test', packageVersion: '1.2.3', options })
}

export function get(url: string, overrides: Partial<HttpRequest> = {}): HttpRequest {
  return { operation: 'test.get', method: 'GET', url, retry: safe, ...overrides }
}

export function post(url: string, overrides: Partial<HttpRequest> = {}): HttpRequest {
  return {
    operation: 'test.post',
    method: 'POST',
    url,
    body: { contentType: 'application/json', text: '{"amount":"10.00"}' },
    retry: safe,
    ...overrides,
  }
}

export { rejection } from '@paywire/core/testing'
