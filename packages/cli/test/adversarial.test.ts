/**
 * Adversarial tests of the `paywire` binary: hostile input to `paywire sim`, secrets in output,
 * forged callbacks, exit codes. Written by a reviewer whose only job was to break the CLI; the
 * `fixed:` groups are the defects found, each fixed since, and kept as guards.
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { request } from 'node:http'
import { connect } from 'node:net'
import { CardGateway } from '@paywire/card-gateway'
import { afterEach, describe, expect, it } from 'vitest'
import { BIN } from './build-bin.js'
import {
  baseEnv,
  cardClient,
  coreutilsHash,
  hasLineStarting,
  ORDER,
  PURCHASE,
  runCli,
  SAMPLE_CALLBACK,
  startReceiver,
  useSims,
} from './helpers.js'

const { sim, closers } = useSims()
const children: Array<ReturnType<typeof spawn>> = []
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
})

/** A raw HTTP/1.1 request whose request-target is sent exactly as given (no URL normalisation). */
function rawRequest(
  base: string,
  method: string,
  target: string,
  body = '',
): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `${method} ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      )
    })
    let data = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      data += chunk
    })
    socket.on('error', reject)
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)
      resolve({ status, text: data })
    })
    socket.setTimeout(10_000, () => socket.destroy(new Error('raw request timed out')))
  })
}

/** `paywire sim --port 0` with the text log (not --json); resolves once it printed its banner. */
async function textSim(extra: string[] = [], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'sim', '--port', '0', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env['PATH'] ?? '', ...env },
  })
  children.push(child)
  let out = ''
  let err = ''
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString()
  })
  const base = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`sim exited ${code}: ${err}`)))
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /control API\s+(http:\/\/\S+)\/__paywire/.exec(out)
      if (match) resolve(match[1] as string)
    })
  })
  return {
    base,
    child,
    out: () => out,
    err: () => err,
    async stop() {
      const exited = once(child, 'exit')
      child.kill('SIGINT')
      await exited
    },
  }
}

const settle = (ms = 150) => new Promise((resolve) => setTimeout(resolve, ms))

// ─────────────────────────────────────────────────────────────────────────────────────────────────
// DEFECTS: these tests fail on the current code.
// ─────────────────────────────────────────────────────────────────────────────────────────────────

describe('fixed: hostile request targets make the simulator answer 500', () => {
  it('control API: invalid percent-encoding in a card payment ref is a 4xx, not a 500 "URI malformed"', async () => {
    const s = await sim()
    const answer = await rawRequest(s.base, 'POST', '/__paywire/card/payments/%E0%A4%A/pay', '{}')
    expect(answer.text).not.toContain('URI malformed')
    expect(answer.status).toBeGreaterThanOrEqual(400)
    expect(answer.status).toBeLessThan(500)
  })

  it('control API: invalid percent-encoding in a remittance transaction id is a 4xx, not a 500', async () => {
    const s = await sim()
    const answer = await rawRequest(
      s.base,
      'POST',
      '/__paywire/remittance/transactions/%ZZ/status',
      '{"status":"PAID"}',
    )
    expect(answer.status).toBeGreaterThanOrEqual(400)
    expect(answer.status).toBeLessThan(500)
  })

  it('GET and POST on the hosted page with a malformed payment id (/card/checkout/%E0%A4%A) is a 404, not a 500', async () => {
    const s = await sim()
    for (const method of ['GET', 'POST']) {
      const answer = await rawRequest(s.base, method, '/card/checkout/%E0%A4%A')
      expect(answer.status).toBe(404)
    }
  })

  it('the request-target "//" (and "//x//") is answered 4xx, not a 500 "Invalid URL"', async () => {
    const s = await sim()
    for (const target of ['//', '//x//', '//:99999/']) {
      const answer = await rawRequest(s.base, 'GET', target)
      expect(answer.text).not.toContain('simulator failure')
      expect(answer.status).toBeGreaterThanOrEqual(400)
      expect(answer.status).toBeLessThan(500)
    }
  })

  it('TRACE on a service path is refused with 405/404/501, not a 500 "simulator failure"', async () => {
    const s = await sim()
    const answer = await rawRequest(s.base, 'TRACE', '/card/post')
    expect(answer.text).not.toContain('simulator failure')
    expect(answer.status).not.toBe(500)
  })

  it('a request that fails inside the simulator still gets its one log line', async () => {
    const s = await sim()
    // TRACE (and a queued fault with a bad header) reach the rejection handler in server.ts,
    // which answers 500 but never calls onRequest.
    await rawRequest(s.base, 'TRACE', '/card/post')
    await rawRequest(s.base, 'GET', '/__paywire/clock')
    await s.waitFor((e) => e['event'] === 'request' && e['path'] === '/__paywire/clock')
    const logged = s.events.filter((e) => e['event'] === 'request').map((e) => e['path'])
    // One line per request: the malformed one must be logged too (with whatever status it got).
    expect(logged).toHaveLength(2)
  })
})

describe('fixed: control API accepts faults that break the next response', () => {
  it('a fault with an invalid header name is refused by POST /faults (400), not queued to 500 the next request', async () => {
    const s = await sim()
    const queued = await s.control('POST', '/faults', {
      service: 'card',
      path: '/post',
      headers: { 'bad header': 'x' },
    })
    const next = await fetch(`${s.base}/card/post`, { method: 'POST', body: 'action=VOID' })
    // Either the control API refuses it, or the fault is served; never a simulator failure.
    if (queued.status === 200) expect(await next.text()).not.toContain('simulator failure')
    else expect(queued.status).toBe(400)
  })

  it('a fault with a header value holding NUL is refused (400), not queued to 500 the next request', async () => {
    const s = await sim()
    const queued = await s.control('POST', '/faults', { service: 'card', path: '/post', headers: { x: 'a\u0000b' } })
    expect(queued.status).toBe(400)
  })

  it('a fault with a 1xx status (101) is refused: a 101 answer to a plain request leaves the client hanging', async () => {
    const s = await sim()
    const queued = await s.control('POST', '/faults', { service: 'remittance', status: 101 })
    expect(queued.status).toBe(400)
  })
})

describe('fixed: log injection in the text log', () => {
  it('a newline in the S2S action cannot forge a second log line', async () => {
    const t = await textSim()
    const forged = '12:00:00.000 control     POST   /__paywire/reset - 200 1 ms'
    await fetch(`${t.base}/card/post`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ action: `VOID\n${forged}` }).toString(),
    })
    await t.stop() // the line is written before the signal is handled; exit flushes stdout
    const lines = t.out().split('\n')
    expect(lines.some((line) => line.startsWith('12:00:00.000 control'))).toBe(false)
  })

  it('escape sequences in the S2S action do not reach the (non-TTY) log', async () => {
    const t = await textSim()
    await fetch(`${t.base}/card/post`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ action: '\u001b[2J\u001b[31mFAKE' }).toString(),
    })
    await t.stop() // the line is written before the signal is handled; exit flushes stdout
    expect(t.out()).not.toContain('\u001b')
  })
})

describe('fixed: log injection through a callback delivery line', () => {
  it('a newline in the order number of a purchase cannot forge a line in the text log of a callback', async () => {
    const receiver = await startReceiver(() => ({ status: 200, body: 'OK' }))
    closers.push(receiver.close)
    const t = await textSim(['--callback-url', receiver.url])
    const gw = new CardGateway({
      checkoutUrl: `${t.base}/card`,
      s2sUrl: `${t.base}/card`,
      merchantKey: 'sim-merchant-key',
      clientKey: 'sim-client-key',
      password: 'sim-password',
      environment: 'sandbox',
    })
    const number = 'A-1\n12:00:00.000 control     POST   /__paywire/reset - 200 1 ms'
    await gw.checkout.purchase({ ...PURCHASE, order: { ...ORDER, number } })
    await fetch(`${t.base}/__paywire/card/payments/${encodeURIComponent(number)}/pay`, { method: 'POST', body: '{}' })
    for (let i = 0; i < 40 && !t.out().includes('callback    →'); i++) await settle(50)
    await t.stop() // the line is written before the signal is handled; exit flushes stdout
    expect(t.out()).toContain('callback    →')
    expect(hasLineStarting(t.out(), '12:00:00.000 control')).toBe(false)
  })
})

describe('fixed: secrets in the request log', () => {
  it('query values named pwd / passwd / pass / cvc are masked in the log', async () => {
    const s = await sim()
    await fetch(`${s.base}/card/post?pwd=HUNTER2&passwd=HUNTER3&pass=HUNTER4&cvc=987`, { method: 'POST' })
    const logged = await s.waitFor((e) => e['event'] === 'request' && String(e['path']).startsWith('/card/post?'))
    for (const secret of ['HUNTER2', 'HUNTER3', 'HUNTER4', '987']) expect(String(logged['path'])).not.toContain(secret)
  })

  it('the sandbox password itself, sent as a query value under an innocent name, is not logged', async () => {
    const s = await sim()
    await fetch(`${s.base}/card/post?p=sim-password&number=4111111111111111`, { method: 'POST' })
    const logged = await s.waitFor((e) => e['event'] === 'request' && String(e['path']).startsWith('/card/post?'))
    expect(String(logged['path'])).not.toContain('sim-password')
    expect(String(logged['path'])).not.toContain('4111111111111111')
  })
})

describe('fixed: credentials in a callback URL', () => {
  const env = baseEnv({ PAYWIRE_CARD_PASSWORD: 'pw' })

  it('callback send --url with user:password@ never prints the password (text)', async () => {
    const receiver = await startReceiver(() => ({ status: 200, body: 'OK' }))
    closers.push(receiver.close)
    const url = receiver.url.replace('http://', 'http://alice:S3CRETPW@')
    const result = await runCli(['callback', 'send', '--url', url], { env })
    expect(result.stdout + result.stderr).not.toContain('S3CRETPW')
  })

  it('callback send --url with user:password@ never prints the password (--json)', async () => {
    const result = await runCli(['callback', 'send', '--url', 'http://alice:S3CRETPW@127.0.0.1:9/cb', '--json'], {
      env,
    })
    expect(result.stdout + result.stderr).not.toContain('S3CRETPW')
  })

  it('callback send --url with user:password@ delivers (basic auth) or is refused as a usage error (exit 2)', async () => {
    const receiver = await startReceiver(() => ({ status: 200, body: 'OK' }))
    closers.push(receiver.close)
    const url = receiver.url.replace('http://', 'http://alice:S3CRETPW@')
    const result = await runCli(['callback', 'send', '--url', url], { env })
    // Today: exit 1 "Request cannot be constructed from a URL that includes credentials", nothing sent.
    if (result.code !== 2) {
      expect(result.code).toBe(0)
      expect(receiver.bodies).toHaveLength(1)
    }
  })

  it('sim --callback-url with user:password@ is refused at start (exit 2), the password printed nowhere', async () => {
    const receiver = await startReceiver(() => ({ status: 200, body: 'OK' }))
    closers.push(receiver.close)
    const url = receiver.url.replace('http://', 'http://alice:S3CRETPW@')
    const result = await runCli(['sim', '--port', '0', '--callback-url', url])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--callback-url must not carry credentials')
    expect(result.stdout + result.stderr).not.toContain('S3CRETPW')
    expect(receiver.bodies).toHaveLength(0)
  })

  it('sim --callback-url with a ?token= query: the token is not in the text banner', async () => {
    const t = await textSim(['--callback-url', 'http://127.0.0.1:9/cb?token=TOK_SECRET_1'])
    await t.stop()
    expect(t.out()).not.toContain('TOK_SECRET_1')
  })
})

describe('fixed: callback verify prints attacker-controlled bytes raw', () => {
  const { password: PASSWORD, fields: FIELDS, signedText: SIGNED } = SAMPLE_CALLBACK
  const env = baseEnv({ PAYWIRE_CARD_PASSWORD: PASSWORD, NO_COLOR: '1' })

  it('a genuine callback whose unsigned status field holds escape sequences: no ESC in the output (NO_COLOR)', async () => {
    const body = new URLSearchParams({
      ...FIELDS,
      status: 'success\u001b]0;pwned\u0007\u001b[2K',
      hash: coreutilsHash(SIGNED),
    }).toString()
    const result = await runCli(['callback', 'verify'], { env, input: body })
    expect(result.code).toBe(0)
    expect(result.stdout).not.toContain('\u001b')
  })

  it('a forged callback cannot print a "verified" line of its own (newline in a field)', async () => {
    const body = new URLSearchParams({
      ...FIELDS,
      order_description: 'Tea\nverified: the signature matches',
      hash: '0'.repeat(40),
    }).toString()
    const result = await runCli(['callback', 'verify'], { env, input: body })
    expect(result.code).toBe(1)
    expect(result.stdout.split('\n').some((line) => line.startsWith('verified'))).toBe(false)
  })
})

describe('fixed: --host and --field edge cases', () => {
  it('sim --host "" is a usage error (exit 2), not a silent bind to every interface', async () => {
    const child = spawn(process.execPath, [BIN, 'sim', '--port', '0', '--host', '', '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: baseEnv(),
    })
    children.push(child)
    let out = ''
    // Whichever comes first, on events rather than a timer: the exit, or the sim announcing a URL
    // (it bound, which is the defect).
    const listening = new Promise<string>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes('http://')) resolve('listening')
      })
    })
    const code = await Promise.race([once(child, 'exit').then(([c]) => c as number | null), listening])
    // Today: it listens on [::] (all interfaces) and prints http://[::]:port URLs.
    expect(out).not.toContain('http://[::]:')
    expect(code).toBe(2)
  })

  it('sim --json --host 0.0.0.0 warns on stderr that the public credentials are exposed (the text banner does)', async () => {
    const s = await sim('--host', '0.0.0.0')
    for (let i = 0; i < 40 && !/warning/i.test(s.stderr()); i++) await settle(25)
    expect(s.stderr()).toMatch(/warning/i)
  })

  it('callback send --field __proto__=x is sent or refused, not silently dropped', async () => {
    const receiver = await startReceiver(() => ({ status: 200, body: 'OK' }))
    closers.push(receiver.close)
    const result = await runCli(['callback', 'send', '--url', receiver.url, '--field', '__proto__=evil'], {
      env: baseEnv({ PAYWIRE_CARD_PASSWORD: 'pw' }),
    })
    if (result.code !== 2) expect(receiver.bodies[0]).toContain('__proto__=evil')
  })
})

// ─────────────────────────────────────────────────────────────────────────────────────────────────
// HELD: attacks that the current code withstands (guards).
// ─────────────────────────────────────────────────────────────────────────────────────────────────

describe('held: the simulator under hostile requests', () => {
  it('PUT, DELETE, OPTIONS, HEAD, PATCH on every mount answer 404 and the server keeps serving', async () => {
    const s = await sim()
    for (const method of ['PUT', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH']) {
      for (const path of ['/__paywire/reset', '/card/post', '/card/checkout/x', '/bill-payment/x', '/remittance/x']) {
        const response = await fetch(`${s.base}${path}`, { method, ...(method === 'HEAD' ? {} : { body: '{}' }) })
        expect(response.status, `${method} ${path}`).toBeLessThan(500)
      }
    }
    expect((await fetch(`${s.base}/__paywire/clock`)).status).toBe(200)
  })

  it('a body of exactly 1 MiB is read; one byte more is 413 (raw socket)', async () => {
    const s = await sim()
    const exact = `{"ms":1}${' '.repeat(1024 * 1024 - 8)}`
    const atCap = await fetch(`${s.base}/__paywire/clock/advance`, { method: 'POST', body: exact })
    expect(atCap.status).toBe(200)
    const over = await new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(s.base)
      const req = request({ hostname, port, path: '/__paywire/clock/advance', method: 'POST' }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', reject)
      req.end(`${exact} `)
    })
    expect(over).toBe(413)
    expect((await fetch(`${s.base}/__paywire/clock`)).status).toBe(200)
  })

  it('a huge header is refused by Node (431) and the server keeps serving', async () => {
    const s = await sim()
    const answer = await rawRequest(s.base, 'GET', `/__paywire/clock`, '').catch(() => undefined)
    expect(answer?.status).toBe(200)
    const { hostname, port } = new URL(s.base)
    const status = await new Promise<number>((resolve) => {
      const req = request({ hostname, port, path: '/__paywire/clock', headers: { 'x-big': 'a'.repeat(100_000) } })
      req.on('response', (res) => resolve(res.statusCode ?? 0))
      req.on('error', () => resolve(-1))
      req.end()
    })
    expect([431, -1]).toContain(status)
    expect((await fetch(`${s.base}/__paywire/clock`)).status).toBe(200)
  })

  it('non-JSON control bodies are 400 with a message; the process lives on', async () => {
    const s = await sim()
    for (const body of ['{', 'null', '"x"', '[1]', '\u0000', '{"ms":1e400}']) {
      const answer = await fetch(`${s.base}/__paywire/clock/advance`, { method: 'POST', body })
      expect(answer.status, body).toBe(400)
    }
    for (const ms of [0, -0, 1.5, '1', null, true, 1e300, Number.MAX_SAFE_INTEGER]) {
      const answer = await s.control('POST', '/clock/advance', { ms })
      expect(answer.status, String(ms)).toBe(400)
    }
    expect((await s.control('GET', '/clock')).body.offsetMs).toBe(0)
  })

  it('a partial body held open (slowloris) does not block other clients; SIGINT still stops the server', async () => {
    const s = await sim()
    const { hostname, port } = new URL(s.base)
    const slow = connect(Number(port), hostname)
    slow.on('error', () => {})
    slow.write(`POST /__paywire/reset HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"a":`)
    await settle(100)
    expect((await fetch(`${s.base}/__paywire/clock`)).status).toBe(200)
    expect(await s.stop('SIGINT')).toBe(0)
    slow.destroy()
  })

  it('invalid percent-encoding outside the decoded routes (/%, /card/%) is a 404', async () => {
    const s = await sim()
    expect((await rawRequest(s.base, 'GET', '/%')).status).toBe(404)
    expect((await rawRequest(s.base, 'POST', '/card/%')).status).toBe(404)
    expect((await rawRequest(s.base, 'GET', '/__paywire/card/payments/%')).status).toBe(404)
  })

  it('newlines in a path cannot forge a log line (the URL parser encodes them)', async () => {
    const t = await textSim()
    await rawRequest(t.base, 'GET', '/remittance/x%0A12:00:00.000%20control')
    await t.stop() // the line is written before the signal is handled; exit flushes stdout
    expect(hasLineStarting(t.out(), '12:00:00.000')).toBe(false)
  })
})

describe('held: callback delivery and signals', () => {
  it('SIGINT stops the server at once while a callback delivery hangs (timeout 10 min)', async () => {
    const receiver = await startReceiver(() => 'hang')
    closers.push(receiver.close)
    const s = await sim('--callback-url', receiver.url, '--callback-timeout', '600000')
    await cardClient(s).checkout.purchase(PURCHASE)
    await s.control('POST', '/card/payments/A-1/pay', {})
    for (let i = 0; i < 50 && receiver.bodies.length === 0; i++) await settle(50)
    expect(receiver.bodies).toHaveLength(1)
    // A stop that waited for the 10-minute delivery would fail on the test's own time limit.
    expect(await s.stop('SIGINT')).toBe(0)
  })

  it('a retry fires once per advance, never twice, and gives up after five retries', async () => {
    const receiver = await startReceiver(() => ({ status: 503, body: 'no' }))
    closers.push(receiver.close)
    const s = await sim('--callback-url', receiver.url)
    await cardClient(s).checkout.purchase(PURCHASE)
    await s.control('POST', '/card/payments/A-1/pay', {})
    await s.waitFor((e) => e['event'] === 'callback' && e['attempt'] === 1)
    for (const [attempt, ms] of [
      [2, 10_000],
      [3, 30_000],
      [4, 60_000],
      [5, 300_000],
      [6, 900_000],
    ] as const) {
      // Two advances at once: the second must not start a second attempt.
      await Promise.all([s.control('POST', '/clock/advance', { ms }), s.control('POST', '/clock/advance', { ms })])
      await s.waitFor((e) => e['event'] === 'callback' && e['attempt'] === attempt)
    }
    await s.control('POST', '/clock/advance', { ms: 3_600_000 })
    // A retry would start inside the advance and show as "sending" in the record at once.
    const [record] = (await s.control('GET', '/callbacks')).body
    expect(record.delivery).toMatchObject({ state: 'failed' })
    expect(record.delivery.attempts).toHaveLength(6)
    const attempts = s.events.filter((e) => e['event'] === 'callback')
    expect(attempts).toHaveLength(6)
    expect(attempts.at(-1)).toMatchObject({ state: 'failed' })
    expect(receiver.bodies).toHaveLength(6)
  })

  it('reset while a retry is pending: the retry never fires after the reset', async () => {
    const receiver = await startReceiver(() => ({ status: 500, body: 'busy' }))
    closers.push(receiver.close)
    const s = await sim('--callback-url', receiver.url)
    await cardClient(s).checkout.purchase(PURCHASE)
    await s.control('POST', '/card/payments/A-1/pay', {})
    await s.waitFor((e) => e['event'] === 'callback' && e['attempt'] === 1)
    await s.control('POST', '/reset')
    await s.control('POST', '/clock/advance', { ms: 20_000 })
    await settle(300)
    expect(receiver.bodies).toHaveLength(1)
    expect((await s.control('GET', '/callbacks')).body).toEqual([])
  })
})

describe('held: sign', () => {
  const env = baseEnv({ PAYWIRE_CARD_PASSWORD: 'Pw-ü' })
  const sign = (...args: string[]) => runCli(['sign', ...args], { env })

  it.each([
    ['with "="', 'a=b=c', 'A=B=CPW-ü'],
    ['empty', '', 'PW-ü'],
    ['non-ASCII', 'é ß ı', 'é ß ıPW-ü'],
    ['100 000 characters', 'x'.repeat(100_000), `${'X'.repeat(100_000)}PW-ü`],
  ])('--field trans_id value %s hashes like coreutils', async (_name, value, text) => {
    const result = await sign('GET_TRANS_STATUS', '--field', `trans_id=${value}`)
    expect(result.code).toBe(0)
    expect(result.stdout.trim()).toBe(coreutilsHash(text))
  })

  it('--compare: uppercase hex, truncated, extra char, other password: mismatch, exit 1', async () => {
    const right = coreutilsHash('ABCPW-ü')
    for (const compared of [right.toUpperCase(), right.slice(0, 39), `${right}0`, coreutilsHash('ABCPW')]) {
      const result = await sign('GET_TRANS_STATUS', '--field', 'trans_id=abc', '--compare', compared)
      expect(result.code, compared).toBe(1)
      expect(result.stdout).toContain('mismatch')
    }
    const ok = await sign('GET_TRANS_STATUS', '--field', 'trans_id=abc', '--compare', right, '--json')
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.stdout)).toMatchObject({ match: true })
  })

  it('the password appears nowhere: --json, --explain, --compare mismatch, stderr', async () => {
    const runs = await Promise.all([
      sign('CAPTURE', '--field', 'trans_id=t', '--json', '--explain'),
      sign('CAPTURE', '--field', 'trans_id=t', '--explain', '--compare', 'abc'),
      sign('CAPTURE', '--field', 'trans_id=t', '--field', 'extra=1', '--compare', 'zz', '--json'),
      sign('callback', '--field', 'id=1'),
    ])
    for (const r of runs) {
      expect(r.stdout + r.stderr).not.toContain('Pw-ü')
      expect((r.stdout + r.stderr).toUpperCase()).not.toContain('PW-Ü')
    }
  })

  it('usage errors exit 2: --field without =, =value, unknown operation, a password on argv', async () => {
    for (const args of [
      ['CAPTURE', '--field', 'trans_id'],
      ['CAPTURE', '--field', '=x'],
      ['NOPE', '--field', 'a=b'],
      ['CAPTURE', '--field', 'trans_id=1', '--password', 'x'],
      ['CAPTURE', '--field', 'trans_id=1', '--field', 'trans_id=2'],
      ['CAPTURE', '--field', 'trans_id=1', '--digest', 'sha1'],
    ]) {
      const result = await sign(...args)
      expect(result.code, args.join(' ')).toBe(2)
    }
  })
})

describe('held: callback verify against forgeries', () => {
  const env = baseEnv({ PAYWIRE_CARD_PASSWORD: 'cb-secret' })
  const FIELDS = {
    id: 'pay-1',
    order_number: 'A-7',
    order_amount: '12.50',
    order_currency: 'EUR',
    order_description: 'Tea',
  }
  const hash = coreutilsHash('PAY-1A-712.50EURTEACB-SECRET')
  const verify = (body: string, ...args: string[]) => runCli(['callback', 'verify', ...args], { env, input: body })

  it.each([
    ['duplicate amount', `${new URLSearchParams({ ...FIELDS, hash })}&order_amount=1.00`],
    ['amount changed', new URLSearchParams({ ...FIELDS, order_amount: '1250', hash }).toString()],
    ['hash uppercased', new URLSearchParams({ ...FIELDS, hash: hash.toUpperCase() }).toString()],
    ['hash with a space', new URLSearchParams({ ...FIELDS, hash: `${hash} ` }).toString()],
    ['JSON with a number amount', JSON.stringify({ ...FIELDS, order_amount: 12.5, hash })],
    ['no signed fields', new URLSearchParams({ hash: coreutilsHash('CB-SECRET') }).toString()],
    ['empty body', ''],
    ['binary junk', '\u0000\u00ff{'],
  ])('%s: not verified, exit 1, no password', async (_name, body) => {
    const result = await verify(body)
    expect(result.code).toBe(1)
    expect(result.stdout + result.stderr).not.toMatch(/cb-secret/i)
  })

  it('stdin over 1 MiB is a usage error (exit 2), not a crash', async () => {
    const result = await verify('a'.repeat(1024 * 1024 + 1))
    expect(result.code).toBe(2)
  })
})
