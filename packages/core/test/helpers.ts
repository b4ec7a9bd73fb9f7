import { ApiError, type ClientOptions } from '@paywire/core'
import { HttpClient, type HttpRequest, type ResponseHandler, safe } from '@paywire/core/engine'
import { vi } from 'vitest'

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

/** A `fetch` that counts its calls: the tests see that the fetch transport, not undici, sent them. */
export function countingFetch(): typeof fetch & { readonly calls: number } {
  let calls = 0
  const counted = ((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    calls++
    return globalThis.fetch(input, init)
  }) as typeof fetch & { readonly calls: number }
  Object.defineProperty(counted, 'calls', { get: () => calls })
  return counted
}

/**
 * The two transports, as client options: the tests of the transport's promises (odd statuses,
 * sizes, deadlines, aborts) run once per row, so one table of expectations holds for both.
 */
export const TRANSPORTS: readonly (readonly [name: string, options: () => ClientOptions])[] = [
  ['undici', () => ({})],
  ['fetch', () => ({ fetch: countingFetch() })],
]

export { rejection } from '@paywire/core/testing'

/**
 * Makes this test file's clients load undici's modules with `import()` (as in a bundle), not
 * `require` (undici.ts `requireUndici`): `vi.mock` of a module replaces what `import()` loads, and
 * `require` would go around it. Call it at the top of the file, before the first request.
 */
export function loadUndiciByImport(): void {
  replaceNodeModule(undefined)
}

/** What `process.getBuiltinModule('node:module')` gives from now on; every other built-in is as before. */
export function replaceNodeModule(replacement: unknown): void {
  const original = process.getBuiltinModule.bind(process)
  const replacing = ((id: string) =>
    id === 'node:module' ? replacement : original(id)) as typeof process.getBuiltinModule
  vi.spyOn(process, 'getBuiltinModule').mockImplementation(replacing)
}
