/**
 * `paywire callback verify` and `send`, from the attacker's side: bodies signed by coreutils, then
 * tampered, reordered, duplicated, emptied, re-encoded; a receiver that fails, hangs or is absent.
 */

import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { baseEnv, coreutilsDigest, coreutilsHash, runCli, SAMPLE_CALLBACK, startReceiver } from './helpers.js'

const { password: PASSWORD, signedText: SIGNED_TEXT } = SAMPLE_CALLBACK
const env = baseEnv({ PAYWIRE_CARD_PASSWORD: PASSWORD })
const FIELDS = { ...SAMPLE_CALLBACK.fields, order_status: 'settled' }
const form = (fields: Record<string, string>, hash: string) => new URLSearchParams({ ...fields, hash }).toString()
const verify = (body: string, ...args: string[]) => runCli(['callback', 'verify', ...args], { env, input: body })

describe('paywire callback verify', () => {
  it('a genuine form body from stdin verifies: exit 0 and the fields', async () => {
    const result = await verify(form(FIELDS, coreutilsHash(SIGNED_TEXT)))
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('verified: the signature matches')
    expect(result.stdout).toContain('  order_status = "settled"')
  })

  it('from --file, as JSON output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paywire-cli-'))
    const file = join(dir, 'callback.txt')
    writeFileSync(file, form(FIELDS, coreutilsHash(SIGNED_TEXT)))
    const result = await runCli(['callback', 'verify', '--file', file, '--json'], { env })
    expect(JSON.parse(result.stdout)).toMatchObject({ verified: true, event: { id: 'pay-1', order_amount: '12.50' } })
  })

  it('a JSON body verifies over its strings', async () => {
    const result = await verify(
      JSON.stringify({ ...FIELDS, hash: coreutilsHash(SIGNED_TEXT) }),
      '--content-type',
      'application/json',
    )
    expect(result.code).toBe(0)
  })

  it('a tampered amount, --show-expected: exit 1, hash_mismatch, and the steps with the password masked', async () => {
    const result = await verify(
      form({ ...FIELDS, order_amount: '1250.00' }, coreutilsHash(SIGNED_TEXT)),
      '--show-expected',
    )
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('not verified (hash_mismatch)')
    expect(result.stdout).toContain('concatenated  pay-1A-71250.00EURTea{password}')
    expect(result.stdout).not.toContain(PASSWORD)
  })

  it('a body signed with sha256 by mistake, --show-expected: the diagnosis names it', async () => {
    const result = await verify(form(FIELDS, coreutilsHash(SIGNED_TEXT, 'sha256')), '--show-expected')
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('  - inner digest sha256 instead of md5')
  })

  it('a body signed in another field order, --show-expected: the diagnosis names the order', async () => {
    const result = await verify(form(FIELDS, coreutilsHash('A-7PAY-112.50EURTEACB-SECRET')), '--show-expected')
    expect(result.stdout).toContain(
      '  - inputs in the order order_number, id, order_amount, order_currency, order_description',
    )
  })

  it('--fields sets the signed order (an account signing differently)', async () => {
    const result = await verify(form(FIELDS, coreutilsHash('A-7PAY-1CB-SECRET')), '--fields', 'order_number,id')
    expect(result.code).toBe(0)
  })

  it('no signed fields at all, only a hash of the password: refused as missing_signed_fields', async () => {
    const result = await verify(form({ type: 'sale', status: 'success' }, coreutilsHash('CB-SECRET')))
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('not verified (missing_signed_fields)')
  })

  it('a duplicated signed field: refused', async () => {
    const body = `${form(FIELDS, coreutilsHash(SIGNED_TEXT))}&order_amount=1.00`
    const result = await verify(body)
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('duplicate_field')
  })

  it('an empty body and a body without hash', async () => {
    expect((await verify('')).stdout).toContain('(empty_body)')
    expect((await verify(new URLSearchParams(FIELDS).toString())).stdout).toContain('(missing_hash)')
  })

  it('a form body declared as JSON was re-encoded: exit 1, said so', async () => {
    const result = await verify(form(FIELDS, coreutilsHash(SIGNED_TEXT)), '--content-type', 'application/json')
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('it was re-encoded on its way here')
  })

  it('a body over 1 MiB is refused without parsing', async () => {
    const result = await verify(`a=${'x'.repeat(1024 * 1024 + 10)}`)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('over 1048576 bytes')
  })

  it('no password: exit 2 naming the variable; --file that does not exist: exit 2', async () => {
    const noPassword = await runCli(['callback', 'verify'], { input: 'a=b' })
    expect(noPassword.code).toBe(2)
    expect(noPassword.stderr).toContain('set PAYWIRE_CARD_PASSWORD')
    const missing = await runCli(['callback', 'verify', '--file', '/nonexistent/cb.txt'], { env })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('cannot read /nonexistent/cb.txt: ENOENT')
  })
})

describe('paywire callback verify is no forging oracle', () => {
  // An attacker's callback: fields of their choosing, a made-up hash.
  const FORGED = { ...FIELDS, id: 'evil-1', order_amount: '9999.00', status: 'success' }
  const FORGED_TEXT = 'EVIL-1A-79999.00EURTEACB-SECRET'
  const RIGHT_HASH = coreutilsHash(FORGED_TEXT)
  const RIGHT_INNER = coreutilsDigest(FORGED_TEXT, 'md5')

  it('a rejected body (text): the reason only; neither the right hash nor its inner digest', async () => {
    const result = await verify(form(FORGED, '0'.repeat(40)))
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('not verified (hash_mismatch)')
    expect(result.stdout).toContain('--show-expected')
    expect(result.stdout + result.stderr).not.toContain(RIGHT_HASH)
    expect(result.stdout + result.stderr).not.toContain(RIGHT_INNER)
  })

  it('a rejected body (--json): reason and message only', async () => {
    const result = await verify(form(FORGED, '0'.repeat(40)), '--json')
    expect(result.code).toBe(1)
    expect(JSON.parse(result.stdout)).toEqual({ verified: false, reason: 'hash_mismatch', message: expect.any(String) })
    expect(result.stdout + result.stderr).not.toContain(RIGHT_HASH)
    expect(result.stdout + result.stderr).not.toContain(RIGHT_INNER)
  })

  it('a body without any hash (--json): the right hash is not handed out either', async () => {
    const result = await verify(new URLSearchParams(FORGED).toString(), '--json')
    expect(result.code).toBe(1)
    expect(JSON.parse(result.stdout)).toMatchObject({ verified: false, reason: 'missing_hash' })
    expect(result.stdout + result.stderr).not.toContain(RIGHT_HASH)
    expect(result.stdout + result.stderr).not.toContain(RIGHT_INNER)
  })

  it('--show-expected with the password from the environment: the expected hash, text and --json', async () => {
    const text = await verify(form(FORGED, '0'.repeat(40)), '--show-expected')
    expect(text.code).toBe(1)
    expect(text.stdout).toContain(`is not the right hash ${RIGHT_HASH}`)
    const json = await verify(form(FORGED, '0'.repeat(40)), '--show-expected', '--json')
    expect(JSON.parse(json.stdout)).toMatchObject({
      verified: false,
      reason: 'hash_mismatch',
      expected: RIGHT_HASH,
      explanation: { hash: RIGHT_HASH },
    })
    expect(text.stdout + text.stderr + json.stdout + json.stderr).not.toContain(PASSWORD)
  })

  it('--show-expected with --password-env naming another variable works the same', async () => {
    const result = await runCli(['callback', 'verify', '--show-expected', '--password-env', 'MY_CARD_PW'], {
      env: baseEnv({ MY_CARD_PW: PASSWORD }),
      input: form(FORGED, '0'.repeat(40)),
    })
    expect(result.stdout).toContain(RIGHT_HASH)
  })

  it.each([[['--password', 'cb-secret']], [['--password=cb-secret']]])(
    '--show-expected with a password argument %j: exit 2 naming --password, no hash, the value not echoed',
    async (args) => {
      const result = await runCli(['callback', 'verify', '--show-expected', ...args], {
        env: baseEnv(),
        input: form(FORGED, '0'.repeat(40)),
      })
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('--show-expected')
      expect(result.stderr).toContain('--password')
      expect(result.stderr).toContain('PAYWIRE_CARD_PASSWORD')
      expect(result.stdout).toBe('')
      expect(result.stderr).not.toContain('cb-secret')
      expect(result.stderr).not.toContain(RIGHT_HASH)
    },
  )

  it('a password argument without --show-expected: exit 2, told where the password comes from', async () => {
    const result = await runCli(['callback', 'verify', '--password', 'cb-secret'], {
      env,
      input: form(FORGED, '0'.repeat(40)),
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--password')
    expect(result.stderr).toContain('PAYWIRE_CARD_PASSWORD')
    expect(result.stderr).not.toContain('cb-secret')
    expect(result.stdout).toBe('')
  })

  it('a genuine body with --show-expected verifies as before', async () => {
    const result = await verify(form(FIELDS, coreutilsHash(SIGNED_TEXT)), '--show-expected')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('verified: the signature matches')
  })
})

describe('paywire callback send', () => {
  const receivers: Array<{ close(): Promise<void> }> = []
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()))
  })

  it('posts a form body whose hash coreutils reproduces; prints the answer; exit 0 on 2xx', async () => {
    const receiver = await startReceiver(() => ({ status: 200, body: 'OK' }))
    receivers.push(receiver)
    const result = await runCli(
      [
        'callback',
        'send',
        '--url',
        receiver.url,
        '--type',
        'refund',
        '--order',
        'R-1',
        '--amount',
        '3.00',
        '--currency',
        'USD',
        '--description',
        'Gift',
        '--id',
        'p-9',
        '--field',
        'order_status=refund',
      ],
      { env },
    )
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('→ 200 "OK"')
    const fields = Object.fromEntries(new URLSearchParams(receiver.bodies[0]))
    expect(fields).toMatchObject({
      id: 'p-9',
      order_number: 'R-1',
      type: 'refund',
      status: 'success',
      order_status: 'refund',
    })
    expect(fields['hash']).toBe(coreutilsHash('P-9R-13.00USDGIFTCB-SECRET'))
    expect(result.stdout + result.stderr).not.toContain(PASSWORD)
  })

  it('a 500 answer: exit 1 and the retry consequence said', async () => {
    const receiver = await startReceiver(() => ({ status: 500, body: 'boom' }))
    receivers.push(receiver)
    const result = await runCli(['callback', 'send', '--url', receiver.url, '--json'], { env })
    expect(result.code).toBe(1)
    expect(JSON.parse(result.stdout)).toMatchObject({ delivered: false, status: 500, body: 'boom' })
  })

  it('a 2xx without OK is delivered, with a note', async () => {
    const receiver = await startReceiver(() => ({ status: 204, body: '' }))
    receivers.push(receiver)
    const result = await runCli(['callback', 'send', '--url', receiver.url], { env })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('the platform expects the plain body OK')
  })

  it('a 302 is not followed and not success', async () => {
    const receiver = await startReceiver(() => ({ status: 302, body: '' }))
    receivers.push(receiver)
    const result = await runCli(['callback', 'send', '--url', receiver.url], { env })
    expect(result.code).toBe(1)
    expect(receiver.bodies).toHaveLength(1)
  })

  it('a receiver that never answers: exit 1 after --timeout', async () => {
    const receiver = await startReceiver(() => 'hang')
    receivers.push(receiver)
    const result = await runCli(['callback', 'send', '--url', receiver.url, '--timeout', '300'], { env })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('no answer within 300 ms')
  })

  it('nobody listening: exit 1, connection refused', async () => {
    const receiver = await startReceiver(() => ({ status: 200, body: 'OK' }))
    const url = receiver.url
    await receiver.close()
    const result = await runCli(['callback', 'send', '--url', url], { env })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('connection refused')
  })

  it.each([
    [[], '--url is required'],
    [['--url', 'ftp://x'], '--url must be an http or https URL'],
    [['--url', 'not a url'], '--url must be an absolute http(s) URL'],
    [['--url', 'http://127.0.0.1:1/', '--field', 'hash=abc'], 'the hash is computed'],
    [['--url', 'http://127.0.0.1:1/', '--amount', ''], 'order_amount is signed and must not be empty'],
    [['--url', 'http://127.0.0.1:1/', '--timeout=-5'], '--timeout must be a whole number'],
  ])('%j: exit 2 with "%s"', async (args, message) => {
    const result = await runCli(['callback', 'send', ...args], { env })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
  })
})
