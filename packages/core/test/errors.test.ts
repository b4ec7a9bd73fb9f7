import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { inspect } from 'node:util'
import {
  ApiError,
  ConnectionError,
  PaywireError,
  RequestValidationError,
  SignatureVerificationError,
  TimeoutError,
  UserAbortError,
} from '@paywire/core'
import { unsentOnly } from '@paywire/core/engine'
import { faults, startFaultServer } from '@paywire/core/testing'
import { build } from 'tsup'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { jsonHandler, makeClient, post } from './helpers.js'

const info = { operation: 'op', method: 'POST', url: 'https://x.test/p', attempts: 1, retry: unsentOnly }

describe('error tree', () => {
  it("requestSent is on PaywireError's type, as the docs' catch blocks read it (before: TS2339)", () => {
    expectTypeOf<PaywireError['requestSent']>().toEqualTypeOf<boolean>()
    const caught: unknown = new ConnectionError({ ...info, message: 'reset', requestSent: true })
    // What a merchant writes: narrowing to the base class is enough to read it.
    if (!(caught instanceof PaywireError)) throw new Error('not a PaywireError')
    expect(caught.requestSent).toBe(true)
    expect(new PaywireError('plain').requestSent).toBe(false)
    expect(new PaywireError('lost', { outcomeUnknown: true }).requestSent).toBe(true)
    expect(new RequestValidationError('op', [{ path: 'x', message: 'bad' }]).requestSent).toBe(false)
    expect(new SignatureVerificationError('hash_mismatch', 'no').requestSent).toBe(false)
  })

  it('every class is a real Error subclass under PaywireError', () => {
    const errors = [
      new RequestValidationError('op', [{ path: 'a', message: 'bad' }]),
      new ConnectionError({ ...info, message: 'm', requestSent: false }),
      new TimeoutError({ ...info, phase: 'headers', timeoutMs: 5, requestSent: true }),
      new UserAbortError({ ...info, requestSent: false }),
      new SignatureVerificationError('hash_mismatch', 'm'),
    ]
    for (const error of errors) {
      expect(error).toBeInstanceOf(Error)
      expect(error).toBeInstanceOf(PaywireError)
      expect(error.stack).toContain(error.name)
    }
    expect(errors[2]).toBeInstanceOf(ConnectionError)
    expect(errors[1]).not.toBeInstanceOf(TimeoutError)
    expect(errors[0]).not.toBeInstanceOf(ApiError)
  })

  it('RequestValidationError lists every issue with its path and says nothing was sent', () => {
    const error = new RequestValidationError('checkout.credit', [
      { path: 'order_amount', message: 'must have two decimals' },
      { path: 'card_token', message: 'must be a string' },
    ])
    expect(error.message).toBe(
      'checkout.credit: invalid request, nothing was sent. order_amount: must have two decimals; card_token: must be a string',
    )
    expect(error.requestSent).toBe(false)
  })

  it('ApiError carries status, code, body, raw body, headers, request id, operation, method and url', async () => {
    const s = await startFaultServer(faults.json(409, { error: 'dup' }, { 'x-request-id': 'req-9' }))
    const client = makeClient({ maxRetries: 0 })
    const error = (await client.send(post(`${s.url}/pay`), jsonHandler).catch((e: unknown) => e)) as ApiError
    await client.close()
    await s.close()
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({
      status: 409,
      code: 409,
      body: { error: 'dup' },
      rawBody: '{"error":"dup"}',
      requestId: 'req-9',
      operation: 'test.post',
      method: 'POST',
      url: `${s.url}/pay`,
      attempts: 1,
      requestSent: true,
    })
    expect(error.headers['content-type']).toBe('application/json')
  })

  it('a 2xx body that is not JSON is kept raw for the service to judge', async () => {
    const s = await startFaultServer(faults.text(200, '<html>ok</html>'))
    const client = makeClient()
    const { data, response } = await client.send(post(s.url), jsonHandler).withResponse()
    await client.close()
    await s.close()
    expect(data).toBe('<html>ok</html>')
    expect(response.rawBody).toBe('<html>ok</html>')
  })
})

describe('instanceof across builds', () => {
  const root = fileURLToPath(new URL('..', import.meta.url))

  it('holds in the ESM build, the CJS build, and across the two', async () => {
    // Build both formats exactly as tsup.config.ts does (without d.ts), into a scratch folder.
    // Inside the package, so the builds resolve undici and zod from its node_modules.
    mkdirSync(join(root, '.tmp'), { recursive: true })
    const outDir = mkdtempSync(join(root, '.tmp', 'dual-'))
    await build({
      entry: { index: join(root, 'src/index.ts') },
      format: ['esm', 'cjs'],
      outDir,
      target: 'node20',
      platform: 'node',
      silent: true,
      external: ['undici', 'zod', 'msw'],
      tsconfig: join(root, 'tsconfig.build.json'),
    })
    const script = `
      const esm = await import(${JSON.stringify(pathToFileURL(join(outDir, 'index.js')).href)})
      const { createRequire } = await import('node:module')
      const cjs = createRequire(import.meta.url)(${JSON.stringify(join(outDir, 'index.cjs'))})
      const init = { operation: 'o', method: 'GET', url: 'https://x', attempts: 1, phase: 'body', timeoutMs: 1, requestSent: true, retry: { kind: 'safe' } }
      const checks = []
      for (const [a, b] of [[esm, esm], [cjs, cjs], [cjs, esm], [esm, cjs]]) {
        const e = new a.TimeoutError(init)
        checks.push(e instanceof b.TimeoutError, e instanceof b.ConnectionError, e instanceof b.PaywireError,
          e instanceof Error, !(e instanceof b.ApiError), !(new a.PaywireError('x') instanceof b.ConnectionError))
      }
      console.log(JSON.stringify(checks))
    `
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root }).toString()
    rmSync(outDir, { recursive: true, force: true })
    const checks = JSON.parse(out) as boolean[]
    expect(checks).toHaveLength(24)
    expect(checks.every(Boolean)).toBe(true)
  }, 60_000)
})

describe('no secret in errors', () => {
  it('inspect and JSON of a thrown error hold no credential header value', async () => {
    const secret = 'x-code-value-that-must-not-leak'
    const s = await startFaultServer(faults.json(401, { title: 'Unauthorized' }))
    const client = makeClient()
    const error = await client
      .send(post(s.url), jsonHandler, { headers: { 'x-code': secret } })
      .catch((e: unknown) => e)
    await client.close()
    await s.close()
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(secret)
    expect(JSON.stringify(error)).not.toContain(secret)
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(secret)
  })
})
