/**
 * `paywire callback capture` from the merchant's side: a real S2S capture callback from `paywire sim
 * --s2s-callbacks`, recorded and tried against the known formulas; a tampered one that none verifies
 * (exit 1: keep refusing); and the listening mode, which answers the delivery 200 OK at once.
 */

import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN } from './build-bin.js'
import { baseEnv, cardClient, finished, PURCHASE, runCli, SANDBOX_PASSWORD, useSims } from './helpers.js'

const { sim } = useSims()
const dir = mkdtempSync(join(tmpdir(), 'paywire-capture-'))
const env = baseEnv({ PAYWIRE_CARD_PASSWORD: SANDBOX_PASSWORD })

async function captureCallback(): Promise<string> {
  const s = await sim('--s2s-callbacks', '--services', 'card')
  expect(s.description.card).toMatchObject({ s2sCallbackFields: ['trans_id'] })
  const gw = cardClient(s)
  await gw.checkout.purchase(PURCHASE)
  await s.control('POST', '/card/payments/A-1/pay', {})
  const trans_id = (await gw.s2s.getTransStatusByOrder({ order_id: 'A-1' })).trans_id ?? ''
  await gw.s2s.capture({ trans_id })
  await gw.close()
  const listed = (await s.control('GET', '/callbacks')).body as { body: string }[]
  return listed.at(-1)?.body ?? ''
}

describe('paywire callback capture', () => {
  it('an S2S capture callback: says which known formula verifies it and the option to set', async () => {
    const body = await captureCallback()
    expect(new URLSearchParams(body).get('action')).toBe('CAPTURE')
    const file = join(dir, 'capture.txt')
    writeFileSync(file, body)
    const result = await runCli(['callback', 'capture', '--file', file, '--json'], { env })
    expect(result.code).toBe(0)
    const answer = JSON.parse(result.stdout)
    expect(answer).toMatchObject({
      shape: 's2s',
      verifiedBy: 'seed chain over trans_id + password, md5',
      option: "s2sCallbackFields: ['trans_id']",
    })
    expect(result.stdout + result.stderr).not.toContain(SANDBOX_PASSWORD)
  })

  it('a body no known formula verifies: exit 1, keep refusing', async () => {
    const body = (await captureCallback()).replace(/trans_id=[^&]+/, 'trans_id=forged')
    const file = join(dir, 'forged.txt')
    writeFileSync(file, body)
    const result = await runCli(['callback', 'capture', '--file', file], { env })
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/no known formula verifies it: keep refusing/)
  })

  it('listens for one delivery, answers 200 OK at once, and records the raw body', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => resolve(port))
      })
    })
    const out = join(dir, 'live.txt')
    const child = spawn(process.execPath, [BIN, 'callback', 'capture', '--out', out, '--port', String(port)], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const done = finished(child)
    let answer: Response | undefined
    for (let i = 0; i < 100 && answer === undefined; i++) {
      answer = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'id=x&hash=00' }).catch(() => undefined)
      if (answer === undefined) await new Promise((resolve) => setTimeout(resolve, 50)) // the port is coming up
    }
    expect([answer?.status, await answer?.text()]).toEqual([200, 'OK'])
    const result = await done
    expect(result.code).toBe(1) // a made-up body: recorded, verified by nothing
    expect(readFileSync(out, 'utf8')).toBe('id=x&hash=00')
  })
})
