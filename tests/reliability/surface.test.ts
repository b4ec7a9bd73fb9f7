/** One surface: every service package re-exports the same core symbols, as the very same objects, and is built the same way. */

import { readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as bill from '@paywire/bill-payment'
import * as card from '@paywire/card-gateway'
import * as core from '@paywire/core'
import * as remittance from '@paywire/remittance'
import { describe, expect, it } from 'vitest'

const CORE_REEXPORTS = [
  'ApiError',
  'ApiPromise',
  'ConnectionError',
  'DeadLetterError',
  'MemoryClaimStore',
  'MemoryIntentStore',
  'PaywireError',
  'RequestValidationError',
  'ResponseTooLargeError',
  'Secret',
  'TimeoutError',
  'UserAbortError',
] as const

describe('the core re-exports of the three packages', () => {
  it.each([
    ['card-gateway', card],
    ['remittance', remittance],
    ['bill-payment', bill],
  ])('%s re-exports each core class itself (instanceof holds across imports)', (name, pkg) => {
    const exported = pkg as unknown as Record<string, unknown>
    const fromCore = core as unknown as Record<string, unknown>
    for (const name of CORE_REEXPORTS) expect(exported[name], name).toBe(fromCore[name])
    // Only the names a package uses: the ProblemDetails services re-export the class their errors
    // extend, and the card gateway, the only one with signed callbacks, the error of one that fails
    // verification. Each has a payment follower, so each re-exports its store and dead letters.
    const own = name === 'card-gateway' ? ['SignatureVerificationError'] : ['ProblemDetailsError']
    const coreNames = Object.keys(exported).filter((name) => fromCore[name] === exported[name])
    expect(coreNames.sort()).toEqual([...CORE_REEXPORTS, ...own].sort())
  })
})

const PACKAGES = ['card-gateway', 'remittance', 'bill-payment'] as const
const root = fileURLToPath(new URL('../../packages/', import.meta.url))

/** The `export … from '@paywire/core'` statements of a package index, as written. */
function coreBlocks(pkg: string): string[] {
  const source = readFileSync(join(root, pkg, 'src/index.ts'), 'utf8')
  return Array.from(source.matchAll(/export (?:type )?\{[^}]*\} from '@paywire\/core'/g), (match) => match[0])
}

describe('the same rooms in every service package', () => {
  it('the core re-export statements (types included) are identical', () => {
    // The ProblemDetails services add the names their errors rest on, the card gateway the names of a
    // failed callback verification; neither has the other's. The follower's store and dead letters are in all three.
    const problemNames = /\s*\b(ProblemDetails|ProblemReason|ProblemDetailsError),/g
    const signatureNames = /\s*\b(SignatureErrorReason|SignatureVerificationError),/g
    const [first, ...rest] = PACKAGES.map((pkg) =>
      coreBlocks(pkg).map((block) => block.replace(problemNames, '').replace(signatureNames, '')),
    )
    expect(first).toHaveLength(2)
    for (const blocks of rest) expect(blocks).toEqual(first)
    expect(coreBlocks('card-gateway').join('\n')).not.toMatch(problemNames)
    expect(coreBlocks('card-gateway').join('\n')).toMatch(signatureNames)
    for (const pkg of ['remittance', 'bill-payment']) expect(coreBlocks(pkg).join('\n')).not.toMatch(signatureNames)
    for (const pkg of PACKAGES) {
      for (const name of ['ClaimStore', 'FollowUpdate', 'MemoryClaimStore', 'DeadLetterError']) {
        expect(coreBlocks(pkg).join('\n')).toMatch(new RegExp(`\\b${name},`))
      }
    }
    for (const pkg of ['remittance', 'bill-payment']) {
      expect(coreBlocks(pkg).join('\n')).toMatch(/ProblemDetailsError,/)
    }
  })

  it.each(PACKAGES)(
    '%s has index, client, errors, fields, resources and a testing kit, and no runner of its own',
    (pkg) => {
      const files = readdirSync(join(root, pkg, 'src'))
      for (const name of ['index.ts', 'client.ts', 'errors.ts', 'fields.ts', 'resources', 'testing']) {
        expect(files).toContain(name)
      }
      // The request pipeline is core's engine: no package keeps an operation runner or context of its own.
      const sources = (readdirSync(join(root, pkg, 'src'), { recursive: true }) as string[]).filter((f) =>
        f.endsWith('.ts'),
      )
      for (const file of sources) {
        expect(['operation.ts', 'context.ts', 'runner.ts'], `${pkg}/src/${file}`).not.toContain(basename(file))
        if (file.startsWith('testing')) continue
        const source = readFileSync(join(root, pkg, 'src', file), 'utf8')
        expect(source, `${pkg}/src/${file}`).not.toMatch(/\bhttp\.send\(|buildRawRequest\(|expandPath\(|randomUUID\(/)
      }
    },
  )

  it('every client has its base URL(s), userAgent, request() and an idempotent close()', async () => {
    const gw = new card.CardGateway({
      checkoutUrl: 'http://127.0.0.1:9/',
      s2sUrl: 'http://127.0.0.1:9',
      merchantKey: 'm',
      clientKey: 'c',
      password: 'p',
    })
    const remit = new remittance.Remittance({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k' })
    const bills = new bill.BillPayment({ baseUrl: 'http://127.0.0.1:9/', clientId: 'i', clientSecret: 's' })
    expect([gw.checkoutUrl, gw.s2sUrl, remit.baseUrl, bills.baseUrl]).toEqual(Array(4).fill('http://127.0.0.1:9'))
    const clients = [gw, remit, bills]
    for (const client of clients) {
      expect(client.userAgent).toMatch(/^paywire-[a-z-]+\/\d+\.\d+\.\d+ node\/\d+/)
      expect(typeof client.request).toBe('function')
      const closing = client.close()
      expect(client.close()).toBe(closing)
      await closing
      await expect(client.close()).resolves.toBeUndefined()
    }
  })
})
