/**
 * What the fast paths must not lose (each found by an adversarial review of them): the caller's
 * `userAgent` is still checked, the first call's load of undici stays inside its deadline and
 * signal, and a schema checking asynchronously (in any realm) stays inside the call.
 */

import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { runInNewContext } from 'node:vm'
import { ApiError, RequestValidationError, UserAbortError } from '@paywire/core'
import { checkBaseUrl, type HttpRequest, OperationClient, type RawResponse } from '@paywire/core/engine'
import { faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished } from 'vitest'
import { get, jsonHandler, makeClient, rejection } from './helpers.js'

const CORE = fileURLToPath(new URL('../src/engine.ts', import.meta.url))

async function server(behaviour = faults.json(200, { ok: true })) {
  const s = await startFaultServer(behaviour)
  onTestFinished(() => s.close())
  return s
}

/** An OperationClient on `url` whose unusable answers carry the reason, for the `schema` option. */
function operations(url: string) {
  const http = makeClient({ maxRetries: 0 })
  onTestFinished(() => http.close())
  const error = (response: RawResponse, request: HttpRequest, message: string) =>
    new ApiError({ ...request, response, body: response.json, message })
  return new OperationClient<undefined>({
    http,
    baseUrls: { default: checkBaseUrl('baseUrl', url, 'Shop') },
    context: undefined,
    journal: undefined,
    answers: {
      read: (response) => response.json,
      toError: (response, request) => error(response, request, `HTTP ${response.status}`),
      unusable: (response, request, problem) => error(response, request, problem.reason),
    },
  })
}

/**
 * Runs `script` in a fresh Node process (this one has long loaded undici) in which loading undici's
 * Pool module takes `delayMs`, as on a cold container or a slow disk. Prints its last line as JSON.
 * The child loads undici with `import()`, as in a bundle (`node:module` hidden from
 * `process.getBuiltinModule`): where `require` reaches undici its modules load synchronously, and
 * no timer runs before they are loaded, with or without this delay.
 */
function runWithSlowUndici(script: string, delayMs: number): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'paywire-slow-undici-'))
  try {
    const hooks = join(dir, 'hooks.mjs')
    writeFileSync(
      hooks,
      // Delays resolving the specifier core imports, not loading the file: Node 24 loads CommonJS
      // through the hooks synchronously, which would block the whole thread instead of the import.
      `export async function resolve(specifier, context, next) {
        if (specifier === 'undici/lib/dispatcher/pool.js') await new Promise((r) => setTimeout(r, ${delayMs}))
        return next(specifier, context)
      }`,
    )
    const register = join(dir, 'register.mjs')
    writeFileSync(
      register,
      `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(hooks).href)})\n` +
        'const builtin = process.getBuiltinModule.bind(process)\n' +
        "process.getBuiltinModule = (id) => (id === 'node:module' ? undefined : builtin(id))",
    )
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--import', pathToFileURL(register).href, '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    )
    return JSON.parse(out.trim().split('\n').at(-1) ?? '{}')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Whether the child's 10 ms probe timer could not run before the call ended (the load blocked the thread). */
function timersBlocked(result: Record<string, unknown>): boolean {
  return result.probe === undefined || Number(result.probe) >= 2_500
}

const SLOW_FIRST_CALL = (callOptions: string, clientOptions: string) => `
import { createServer } from 'node:http'
const { HttpClient, safe } = await import(${JSON.stringify(CORE)})
let received = 0
const server = createServer(() => { received++ }) // never answers
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const url = 'http://127.0.0.1:' + server.address().port + '/pay'
const http = new HttpClient({ packageName: 'x', packageVersion: '1', options: ${clientOptions} })
const handler = { decode: (r) => r.json, toError: () => new Error('unexpected answer') }
const started = performance.now()
// Whether timers run while undici loads: Node 24 runs loader hooks on the main thread, blocking it.
let probe
setTimeout(() => { probe = Math.round(performance.now() - started) }, 10)
const error = await http.send({ operation: 'x.pay', method: 'GET', url, retry: safe }, handler, ${callOptions}).then(
  () => undefined,
  (e) => e,
)
const elapsed = Math.round(performance.now() - started)
await http.close()
server.closeAllConnections()
server.close()
console.log(JSON.stringify({ name: error?.name, phase: error?.phase, requestSent: error?.requestSent, elapsed, probe, received }))
process.exit(0) // the slowed load is still pending: do not wait for it
`

describe('the fast paths keep every rule', () => {
  it('a userAgent with a line break or a non-Latin-1 character is a RequestValidationError, and nothing is sent', async () => {
    // The fixed headers are no longer checked per call, but `user-agent` carries the caller's
    // `userAgent` option: undici now refuses it mid-call, as a ConnectionError "connection failed".
    const s = await server()
    for (const userAgent of ['my-shop/1.4\r\nx-injected: 1', 'my-shop/1.4 ✓']) {
      const http = makeClient({ userAgent, maxRetries: 0 })
      onTestFinished(() => http.close())
      const error = await rejection(http.send(get(`${s.url}/a`), jsonHandler))
      expect(error, JSON.stringify(userAgent)).toBeInstanceOf(RequestValidationError)
      expect((error as RequestValidationError).issues).toEqual([
        expect.objectContaining({ path: 'headers.user-agent' }),
      ])
    }
    expect(s.requests).toHaveLength(0)
  })

  it('the first call of a process ends by its totalTimeout, even while undici is still loading: nothing is sent', () => {
    // A load slowed to 5 s, a 200 ms call: the deadline, counted from the call's start, has passed when
    // the load ends, so nothing may be sent (before the fix: sent, then timed out in the headers phase).
    const result = runWithSlowUndici(SLOW_FIRST_CALL('{}', '{ timeout: 200, totalTimeout: 200, maxRetries: 0 }'), 5_000)
    expect(result).toMatchObject({ name: 'TimeoutError', phase: 'total', requestSent: false, received: 0 })
    // Where timers run during the load (Node 20, 22), the call ends long before it.
    expect(timersBlocked(result) || Number(result.elapsed) < 2_500, JSON.stringify(result)).toBe(true)
  }, 30_000)

  it('an abort during the first call of a process ends the call once the signal fires, nothing sent', () => {
    const result = runWithSlowUndici(
      SLOW_FIRST_CALL('{ signal: AbortSignal.timeout(100) }', '{ maxRetries: 0 }'),
      5_000,
    )
    expect(result.name).toBe('UserAbortError')
    // Where timers run during the load (Node 20, 22), the abort ends the call at once, nothing sent. Where
    // the loader blocks the thread (Node 24 with loader hooks), no timer can fire until the load is done.
    const atOnce = result.requestSent === false && result.received === 0 && Number(result.elapsed) < 2_500
    expect(timersBlocked(result) || atOnce, JSON.stringify(result)).toBe(true)
  }, 30_000)

  it('a Standard Schema whose validate returns a Promise of another realm still checks the answer', async () => {
    // A promise from another realm (vm, a bundled polyfill) is no `instanceof Promise` here: read as
    // a sync result with no `issues`, the call would succeed with `undefined`.
    const s = await server(faults.json(200, { id: 42 }))
    const ops = operations(s.url)
    const validate = runInNewContext(
      '(async (value) => typeof value.id === "string" ? { value } : { issues: [{ message: "must be a string", path: ["id"] }] })',
    )
    const schema = { '~standard': { version: 1 as const, vendor: 'other-realm', validate } }
    const error = await rejection(ops.request({ method: 'GET', path: '/item' }, { schema }))
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).message).toContain('response_schema_mismatch')
  })

  it('an abort while an asynchronous schema is checking the answer rejects with UserAbortError', async () => {
    // The check runs after the attempt's own deadline and listener are released. This one never
    // settles: a call that ignored the abort would never end (and the test would time out).
    const s = await server(faults.json(200, { id: 'a' }))
    const ops = operations(s.url)
    let checking: () => void = () => {}
    const started = new Promise<void>((resolve) => {
      checking = resolve
    })
    const validate = () => {
      checking()
      return new Promise<never>(() => {})
    }
    const schema = { '~standard': { version: 1 as const, vendor: 'never', validate } }
    const controller = new AbortController()
    const call = ops.request({ method: 'GET', path: '/item' }, { schema, signal: controller.signal })
    await started
    controller.abort()
    const error = await rejection(call)
    expect(error).toBeInstanceOf(UserAbortError)
    expect((error as UserAbortError).requestSent).toBe(true)
  })

  it.each(['https://api.example/v1#', 'https://api.example/v1?'])(
    'a base URL ending in a bare fragment or query mark (%s) is refused',
    (url) => {
      expect(() => checkBaseUrl('baseUrl', url, 'Shop')).toThrow(RequestValidationError)
    },
  )
})
