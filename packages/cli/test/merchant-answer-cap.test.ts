/**
 * What the CLI reads of a merchant's answer when it posts a callback (`paywire sim --callback-url`,
 * `paywire callback send`), from the attacker's side: a loopback merchant that answers 200 and then
 * streams a body without end. The CLI reads the first 4 KiB, closes the connection and says the
 * answer was cut; the merchant counts the bytes it managed to write before the connection closed.
 */

import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { baseEnv, cardClient, PURCHASE, runCli, useSims } from './helpers.js'

const { sim, closers } = useSims()
const env = baseEnv({ PAYWIRE_CARD_PASSWORD: 'sim-password' })

/** The most the endless merchant writes before giving up and ending the answer itself. */
const GIVE_UP_BYTES = 64 * 1024 * 1024
/** Far above the CLI's 4 KiB plus every socket buffer between the two ends, far below GIVE_UP_BYTES. */
const BOUNDED_BYTES = 16 * 1024 * 1024

interface Streamed {
  /** Body bytes handed to the socket before it closed. */
  readonly written: number
  /** Whether the client closed the connection before the merchant ended the answer. */
  readonly closedByClient: boolean
}

/** A merchant answering every POST with 200 and 64 KiB chunks of "A" until the client hangs up. */
async function startEndlessMerchant(): Promise<{ url: string; answers: Array<Promise<Streamed>> }> {
  const answers: Array<Promise<Streamed>> = []
  const server = createServer((req, res) => {
    answers.push(
      new Promise<Streamed>((resolve) => {
        const chunk = Buffer.alloc(64 * 1024, 'A')
        let written = 0
        res.on('close', () => resolve({ written, closedByClient: !res.writableFinished }))
        req.resume()
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'text/plain' })
          const pump = (): void => {
            while (written < GIVE_UP_BYTES && !res.destroyed) {
              written += chunk.length
              if (!res.write(chunk)) {
                res.once('drain', pump)
                return
              }
            }
            if (!res.destroyed) res.end()
          }
          pump()
        })
      }),
    )
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/callbacks`, answers }
}

/** A merchant answering 200 with `size` bytes of "B". */
async function startSizedMerchant(size: number): Promise<string> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end(Buffer.alloc(size, 'B'))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`
}

describe('paywire sim --callback-url: the merchant answer is read up to 4 KiB', () => {
  it('an endless 200 body: the sim stops reading, closes the connection, reports the status and the cut', async () => {
    const merchant = await startEndlessMerchant()
    const s = await sim('--services', 'card', '--callback-url', merchant.url)
    await cardClient(s).checkout.purchase(PURCHASE)
    await s.control('POST', '/card/payments/A-1/pay', {})
    const event = await s.waitFor((e) => e['event'] === 'callback' && e['attempt'] === 1, 30_000)
    const streamed = await merchant.answers[0]
    expect(streamed?.closedByClient).toBe(true)
    expect(streamed?.written).toBeLessThan(BOUNDED_BYTES)
    expect(event).toMatchObject({ state: 'delivered', answer: { status: 200, cut: true } })
    expect(String((event['answer'] as { body: string }).body)).toMatch(/^A{200}$/)
    // The sim keeps serving.
    expect((await s.control('GET', '/callbacks')).status).toBe(200)
  })
})

describe('paywire callback send: the merchant answer is read up to 4 KiB', () => {
  it('an endless 200 body: exit 0 (2xx), the connection closed, the cut said (--json)', async () => {
    const merchant = await startEndlessMerchant()
    const result = await runCli(['callback', 'send', '--url', merchant.url, '--json'], { env })
    expect(result.code).toBe(0)
    const streamed = await merchant.answers[0]
    expect(streamed?.closedByClient).toBe(true)
    expect(streamed?.written).toBeLessThan(BOUNDED_BYTES)
    const line = JSON.parse(result.stdout)
    expect(line).toMatchObject({ delivered: true, status: 200, bodyCut: true })
    expect(line.body.length).toBeLessThanOrEqual(4096)
  })

  it('an endless 200 body: the text output says the answer was cut at 4096 bytes', async () => {
    const merchant = await startEndlessMerchant()
    const result = await runCli(['callback', 'send', '--url', merchant.url], { env })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('answer cut at 4096 bytes')
    expect((await merchant.answers[0])?.closedByClient).toBe(true)
  })

  it('exactly 4096 bytes is read whole; 4097 is cut', async () => {
    const whole = JSON.parse(
      (await runCli(['callback', 'send', '--url', await startSizedMerchant(4096), '--json'], { env })).stdout,
    )
    expect(whole).toMatchObject({ delivered: true, status: 200, bodyCut: false })
    const cut = JSON.parse(
      (await runCli(['callback', 'send', '--url', await startSizedMerchant(4097), '--json'], { env })).stdout,
    )
    expect(cut).toMatchObject({ delivered: true, status: 200, bodyCut: true })
  })
})
