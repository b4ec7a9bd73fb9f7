/**
 * Importing core (and constructing a client) loads no undici module: the first request does, once
 * (undici.ts). Run in a fresh process, since this test process has long loaded undici.
 */

import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const CORE = fileURLToPath(new URL('../src/engine.ts', import.meta.url))

const SCRIPT = `
import { createRequire } from 'node:module'
const require = createRequire(import.meta.url)
const undiciModules = () => Object.keys(require.cache).filter((path) => path.includes('/undici/')).length
const { HttpClient, safe } = await import(${JSON.stringify(CORE)})
const afterImport = undiciModules()
const answer = (options, handler) => {
  setImmediate(() => {
    handler.onConnect(() => {})
    handler.onHeaders(200, [Buffer.from('content-length'), Buffer.from('2')], () => {}, 'OK')
    handler.onData(Buffer.from('{}'))
    handler.onComplete([])
  })
  return true
}
const http = new HttpClient({ packageName: 'x', packageVersion: '1', options: { dispatcher: { dispatch: answer } } })
const afterConstruct = undiciModules()
const handler = { decode: (r) => r.json, toError: () => new Error('unexpected') }
const data = await http.send({ operation: 'x', method: 'GET', url: 'https://a.example/x', retry: safe }, handler)
console.log(JSON.stringify({ afterImport, afterConstruct, afterRequest: undiciModules(), data }))
`

describe('undici is loaded by the first request, not by the import', () => {
  it('no undici module after import and construction; loaded once a request is made', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
      encoding: 'utf8',
    })
    const result = JSON.parse(out.trim().split('\n').at(-1) ?? '{}')
    expect(result.afterImport).toBe(0)
    expect(result.afterConstruct).toBe(0)
    expect(result.afterRequest).toBeGreaterThan(0)
    expect(result.data).toEqual({})
  })
})
