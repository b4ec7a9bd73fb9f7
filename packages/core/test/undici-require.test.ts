/**
 * undici's Pool and Client are required, not imported, where Node's `require` reaches them
 * (undici.ts `requireUndici`): an `import()` of a CommonJS module makes Node's ES module loader scan
 * its source for export names first, milliseconds of a cold process's first answer. Where `require`
 * cannot reach them (no `node:module`, a bundle with no node_modules beside it) the `import()` that
 * bundlers see loads them, and the call is answered the same.
 */

import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { faults, startFaultServer } from '@paywire/core/testing'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { get, jsonHandler, makeClient, replaceNodeModule } from './helpers.js'

/** Every undici Client the transport makes through `import()`: the real Client, counted. */
const importedClients = vi.hoisted(() => ({ made: 0 }))
vi.mock('undici/lib/dispatcher/client.js', async (importOriginal) => {
  const Client = ((await importOriginal()) as { default: typeof import('undici').Client }).default
  class CountedClient extends Client {
    constructor(...args: ConstructorParameters<typeof Client>) {
      super(...args)
      importedClients.made++
    }
  }
  return { default: CountedClient }
})

const PACKAGE = fileURLToPath(new URL('..', import.meta.url))

/**
 * Runs `script` (an ES module, or CommonJS with `commonjs`) in a fresh Node process whose ES module
 * loader writes down every undici specifier it resolves; returns them and the script's last line.
 */
function firstCallIn(script: string, options: { commonjs?: boolean; tsx?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'paywire-undici-require-'))
  try {
    const seen = join(dir, 'seen.txt')
    writeFileSync(seen, '')
    const hooks = join(dir, 'hooks.mjs')
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs'
      export async function resolve(specifier, context, next) {
        if (specifier.includes('undici')) appendFileSync(${JSON.stringify(seen)}, specifier + '\\n')
        return next(specifier, context)
      }`,
    )
    const register = join(dir, 'register.mjs')
    writeFileSync(
      register,
      `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(hooks).href)})`,
    )
    const out = execFileSync(
      process.execPath,
      [
        ...(options.tsx ? ['--import', 'tsx'] : []),
        '--import',
        pathToFileURL(register).href,
        ...(options.commonjs ? [] : ['--input-type=module']),
        '-e',
        script,
      ],
      { encoding: 'utf8', cwd: PACKAGE },
    )
    const specifiers = readFileSync(seen, 'utf8').split('\n').filter(Boolean)
    return { answer: out.trim().split('\n').at(-1), specifiers }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A first GET from a fresh client (a kept-alive connection: undici's Client) to a loopback server answering `{"ok":true}`. */
const FIRST_CALL = (load: string) => `
const { createServer } = require('node:http')
;(async () => {
  const { HttpClient, safe } = ${load}
  const server = createServer((req, res) => res.end('{"ok":true}'))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const http = new HttpClient({ packageName: 'x', packageVersion: '1', options: { maxRetries: 0 } })
  const handler = { decode: (r) => r.json, toError: () => new Error('unexpected answer') }
  const url = 'http://127.0.0.1:' + server.address().port + '/status'
  const answer = await http.send({ operation: 'x.status', method: 'GET', url, retry: safe }, handler)
  await http.close()
  server.close()
  console.log(JSON.stringify(answer))
})()
`

describe("undici's modules are required where Node's require reaches them", () => {
  it('from the source: the first call is answered, and no undici module went through the ES module loader', () => {
    const source = pathToFileURL(join(PACKAGE, 'src', 'engine.ts')).href
    const script = `import { createRequire } from 'node:module'\nconst require = createRequire(import.meta.url)\n${FIRST_CALL(`await import(${JSON.stringify(source)})`)}`
    const { answer, specifiers } = firstCallIn(script, { tsx: true })
    expect(answer).toBe('{"ok":true}')
    expect(specifiers.filter((s) => s.startsWith('undici/lib/dispatcher/'))).toEqual([])
  })

  // The builds as published (CI builds before it tests; the README's two commands test the source).
  it.skipIf(!existsSync(join(PACKAGE, 'dist', 'engine.cjs'))).each([
    ['ES module', 'engine.js', false],
    ['CommonJS', 'engine.cjs', true],
  ] as const)('from the %s build: the same', (_, file, commonjs) => {
    const built = join(PACKAGE, 'dist', file)
    const load = commonjs
      ? `require(${JSON.stringify(built)})`
      : `await import(${JSON.stringify(pathToFileURL(built).href)})`
    const prelude = commonjs
      ? ''
      : `import { createRequire } from 'node:module'\nconst require = createRequire(import.meta.url)\n`
    const { answer, specifiers } = firstCallIn(`${prelude}${FIRST_CALL(load)}`, { commonjs })
    expect(answer).toBe('{"ok":true}')
    expect(specifiers.filter((s) => s.startsWith('undici/lib/dispatcher/'))).toEqual([])
  })

  it('where require cannot find undici (a bundle with no node_modules), import() loads it and the call is answered', async () => {
    const notFound = (id: string) => {
      throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' })
    }
    replaceNodeModule({ createRequire: () => notFound })
    const s = await startFaultServer(faults.json(200, { ok: true }))
    onTestFinished(s.close)
    const client = makeClient()
    onTestFinished(() => client.close())
    await expect(client.send(get(s.url), jsonHandler)).resolves.toEqual({ ok: true })
    expect(importedClients.made).toBe(1)
  })
})
