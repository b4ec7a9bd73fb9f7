import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const entry = fileURLToPath(new URL('../src/engine.ts', import.meta.url))

/**
 * Runs `body` in a fresh Node process (the test runner may already hold undici's main entry) with
 * core loaded from source, and returns what it printed as JSON.
 */
async function inFreshProcess(body: string): Promise<Record<string, unknown>> {
  const program = `
    const slot = Symbol.for('undici.globalDispatcher.1')
    // Node's own modules first: Node 24's node:http installs Node's own dispatcher in the slot.
    const { createServer } = await import('node:http')
    const before = globalThis[slot]
    const core = await import(${JSON.stringify(entry)})
    ${body}
  `
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
  })
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}')
}

describe("Node's global fetch dispatcher", () => {
  it('is left alone by importing core, constructing a client and sending a request', async () => {
    const result = await inFreshProcess(`
      const server = createServer((_req, res) => res.end('{"ok":true}'))
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
      const afterImport = globalThis[slot] === before
      const client = new core.HttpClient({ packageName: 'probe', packageVersion: '0.0.0', options: { maxRetries: 0 } })
      const answer = await client.send(
        { operation: 'probe.get', method: 'GET', url: 'http://127.0.0.1:' + server.address().port + '/', retry: core.safe },
        { decode: (response) => response.json, toError: () => new Error('unexpected') },
      )
      const afterRequest = globalThis[slot] === before
      await client.close()
      server.close()
      console.log(JSON.stringify({ afterImport, afterRequest, answer }))
    `)
    expect(result).toEqual({ afterImport: true, afterRequest: true, answer: { ok: true } })
  })

  it("is what undici's main entry fills when it is empty (the probe can see the side effect)", async () => {
    const result = await inFreshProcess(`
      await import('undici')
      console.log(JSON.stringify({ startedEmpty: before === undefined, changed: globalThis[slot] !== before }))
    `)
    // Where Node starts with the slot empty (Node 20), undici's main entry fills it: the effect core avoids.
    expect(result['changed']).toBe(result['startedEmpty'])
  })
})
