/**
 * core loads undici's `Agent` and `request` from their own modules (private paths, see undici.ts):
 * so the version is pinned exactly, and these tests fail the day an upgrade moves or changes them.
 */

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'

const require = createRequire(import.meta.url)
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>
}

describe('the private undici paths core loads', () => {
  it('undici is pinned to one exact version, and that version is the one installed', () => {
    const pinned = manifest.dependencies['undici']
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/)
    const installed = JSON.parse(readFileSync(require.resolve('undici/package.json'), 'utf8')) as { version: string }
    expect(installed.version).toBe(pinned)
  })

  it("the Agent module is undici's public Agent", async () => {
    const { default: AgentFromPath } = await import('undici/lib/dispatcher/agent.js')
    const undici = await import('undici')
    expect(AgentFromPath).toBe(undici.Agent)
    const agent = new AgentFromPath()
    expect(typeof agent.dispatch).toBe('function')
    await agent.close()
  })

  it('the request module is the function behind undici.request, called on a dispatcher', async () => {
    const { default: requestFromPath } = await import('undici/lib/api/api-request.js')
    expect(typeof requestFromPath).toBe('function')
    const source = readFileSync(require.resolve('undici/index.js'), 'utf8')
    expect(source).toContain("require('./lib/api')")
    const api = require('undici/lib/api/index.js') as { request: unknown }
    expect(api.request).toBe(requestFromPath)
  })
})
