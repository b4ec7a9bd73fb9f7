/**
 * Adversarial review of 9601b9d: "one TLS context per client changes nothing a connection verifies",
 * and the money-moving calls' pools (one undici Pool per origin, renewed once 2 s old) still work and
 * renew over HTTP/2. Each case runs a merchant process (fixtures/tls-context-adversary-merchant.ts)
 * that serves its gateways on one loopback port and restarts them between phases; it trusts a CA
 * made here (NODE_EXTRA_CA_CERTS), and ends on its own after close() (a leaked socket or timer would
 * keep it alive past the test's time limit).
 */

import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import * as tls from 'node:tls'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type FixturePackage, killFixtures, runFixtureToEnd } from '../../../tests/support/fixture-process.js'
import type { Seen } from './fixtures/tls-context-adversary-merchant.js'

const here = dirname(fileURLToPath(import.meta.url))
const fixtures: FixturePackage = { packageDir: join(here, '..'), external: ['undici'] }

let dir = ''

/**
 * A CA, a certificate it signed for 127.0.0.1, one it signed for other.example only, and a self-signed
 * one for 127.0.0.1. EC keys: RSA key generation took over 10 s on a loaded 2-core machine.
 */
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tls-context-adversary-'))
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' })
  /** A P-256 key written to `<name>.key`, unencrypted. */
  const newKey = (name: string) => [
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${name}.key`,
  ]
  /** A new key and a self-signed certificate for it (`<name>.pem`), with these extensions. */
  const selfSigned = (name: string, subject: string, ...extensions: string[]) =>
    openssl(
      'req',
      '-x509',
      ...newKey(name),
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-subj',
      subject,
      ...extensions.flatMap((e) => ['-addext', e]),
    )
  selfSigned(
    'ca',
    '/CN=paywire adversary test CA',
    'basicConstraints=critical,CA:TRUE',
    'keyUsage=critical,keyCertSign,cRLSign',
  )
  for (const [name, cn, san] of [
    ['good', '127.0.0.1', 'IP:127.0.0.1,DNS:localhost'],
    ['wrong', 'other.example', 'DNS:other.example'],
  ] as const) {
    writeFileSync(
      join(dir, `${name}.ext`),
      `basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`,
    )
    openssl('req', ...newKey(name), '-out', `${name}.csr`, '-subj', `/CN=${cn}`)
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
    )
  }
  selfSigned('self', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost')
}, 60_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

afterEach(() => killFixtures())

type Outcome = Record<string, unknown>

async function run(scenario: string): Promise<Record<string, unknown>> {
  const { value } = await runFixtureToEnd<Record<string, unknown>>(
    fixtures,
    'tls-context-adversary-merchant.ts',
    [dir, scenario],
    { NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') },
  )
  return value
}

const answered = { ok: true, redirect_url: 'https://pay.example/s/1' }
const refusedUnsent = (code: RegExp) => ({
  ok: false,
  name: 'ConnectionError',
  requestSent: false,
  outcomeUnknown: false,
  message: expect.stringMatching(code),
})

describe('one TLS context per client: a kept session never stands in for checking the certificate', () => {
  it('after paying a trusted gateway, an impostor on the same port (self-signed, or CA-signed for another name; TLS 1.3 and 1.2, each called twice) is refused unsent for every kind of call; the trusted gateway back is paid again', async () => {
    const r = await run('restart')
    const trusted = r.trusted as Outcome[]
    expect(trusted.slice(0, 3)).toEqual([answered, answered, answered])
    expect(trusted[3]).toMatchObject({ ok: true, trans_id: 't-1' })
    const trustedSeen = r.trustedSeen as Seen
    // The purchases after the first resumed the kept session (what the impostors are offered).
    expect(trustedSeen.resumed).toBeGreaterThanOrEqual(2)
    for (const [label, code] of [
      ['self-tls13', /connection failed \(DEPTH_ZERO_SELF_SIGNED_CERT\)\. The request was not sent/],
      ['self-tls12', /connection failed \(DEPTH_ZERO_SELF_SIGNED_CERT\)\. The request was not sent/],
      ['wrong-tls13', /connection failed \(ERR_TLS_CERT_ALTNAME_INVALID\)\. The request was not sent/],
      ['wrong-tls12', /connection failed \(ERR_TLS_CERT_ALTNAME_INVALID\)\. The request was not sent/],
    ] as const) {
      const outcomes = r[label] as Outcome[]
      for (const [i, o] of outcomes.entries()) expect(o, `${label} #${i}`).toMatchObject(refusedUnsent(code))
      const seen = r[`${label}Seen`] as Seen
      expect(seen.requests, label).toEqual([])
    }
    expect(r.back).toEqual([answered, answered])
    expect((r.backSeen as Seen).requests).toHaveLength(2)
  }, 60_000)

  // Defect proof (fails on 9601b9d): the context is made once, by the client's first connection, so
  // Node's TLS defaults as they were then hold for the client's life. Before 9601b9d each connection's
  // context was made from the defaults of its moment, as a plain tls.connect's still is.
  it("Node's TLS defaults changed by the application after the client's first connection (tls.DEFAULT_MIN_VERSION raised to TLSv1.3) apply to the client's later connections, as to a plain tls.connect: a TLS 1.2 gateway is refused unsent", async () => {
    const r = await run('runtime-tls-defaults')
    expect(r.before).toEqual(answered)
    // A plain tls.connect (a context per connection, as the client made before 9601b9d) refuses TLS 1.2 now.
    expect(r.plainTlsConnect).toMatch(/^error /)
    expect(r.after).toMatchObject({ ok: false, requestSent: false })
    expect((r.afterSeen as Seen).requests).toEqual([])
  }, 60_000)

  // The same with the trust store itself, on Nodes with tls.setDefaultCACertificates (24.5+):
  // not run on Node 20, which has no such API.
  it.skipIf(typeof (tls as { setDefaultCACertificates?: unknown }).setDefaultCACertificates !== 'function')(
    "a CA the application removed from Node's default trust store after the client's first connection is no longer trusted by the client: a restarted gateway signed by it is refused unsent",
    async () => {
      const r = await run('runtime-ca-store')
      expect(r.before).toEqual(answered)
      expect(r.plainTlsConnect).toMatch(/^error /)
      expect(r.after).toMatchObject({ ok: false, requestSent: false })
      expect((r.afterSeen as Seen).requests).toEqual([])
    },
    60_000,
  )
})

describe('HTTP/2 with one Pool per origin: used, reused within 2 s, renewed after, capped across generations', () => {
  it('a gateway restarted from HTTP/1.1 to h2: payments go over h2 on one connection, a new one after 2 s; an h2 impostor is refused unsent', async () => {
    const r = await run('h1-then-h2')
    expect(r.h1).toEqual([answered, answered])
    expect((r.h1Seen as Seen).protocols).toEqual(['1.1', '1.1'])
    expect(r.h2).toEqual([answered, answered, answered])
    expect(r.h2AfterIdle).toEqual([answered, answered])
    const h2 = r.h2Seen as Seen
    expect(h2.protocols).toEqual(['2.0', '2.0', '2.0', '2.0', '2.0'])
    // Reused within 2 s (one connection, unless the machine took 2 s for three payments), renewed after.
    expect(r.h2SessionsBeforeIdle).toBeGreaterThanOrEqual(1)
    expect(h2.sessions).toBeGreaterThan(r.h2SessionsBeforeIdle as number)
    expect(h2.requests).toHaveLength(5)
    for (const o of r.impostor as Outcome[]) {
      expect(o).toMatchObject(
        refusedUnsent(/connection failed \(DEPTH_ZERO_SELF_SIGNED_CERT\)\. The request was not sent/),
      )
    }
    expect((r.impostorSeen as Seen).requests).toEqual([])
  }, 60_000)

  it("maxSockets 1 on h2: a payment held on the retired generation's connection keeps the next generation from connecting until it ends; both answered, each sent once", async () => {
    const r = await run('h2-renew-cap')
    expect(r.warm).toEqual(answered)
    expect(r.sessionsWhileHeld).toBe(1)
    expect(r.requestsWhileHeld).toBe(2)
    expect(r.first).toEqual(answered)
    expect(r.second).toEqual(answered)
    const seen = r.seen as Seen
    expect(seen.sessions).toBeGreaterThanOrEqual(2)
    expect(seen.requests).toEqual(['purchase:o-1', 'purchase:o-2', 'purchase:o-3'])
  }, 60_000)
})
