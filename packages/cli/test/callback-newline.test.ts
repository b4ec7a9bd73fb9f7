/**
 * `paywire callback verify` on a body that ends with a newline (echo, an editor, a saved file): the
 * gateway never sends that byte, so the body is not verified, and the diagnosis says so in plain
 * words instead of "X is not the right hash X" with an empty finding.
 */

import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN } from './build-bin.js'
import { baseEnv, coreutilsHash, finished, runCli, SAMPLE_CALLBACK } from './helpers.js'

const { password: PASSWORD, signedText: SIGNED_TEXT } = SAMPLE_CALLBACK
const env = baseEnv({ PAYWIRE_CARD_PASSWORD: PASSWORD })
const FIELDS = { ...SAMPLE_CALLBACK.fields }
const BODY = new URLSearchParams({ ...FIELDS, hash: coreutilsHash(SIGNED_TEXT) }).toString()

function saved(content: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'paywire-nl-')), 'callback.txt')
  writeFileSync(file, content)
  return file
}

/** `echo "$body" | paywire callback verify …`, through a real shell pipe. */
async function echoed(body: string, ...args: string[]) {
  const script = 'body=$1; node=$2; bin=$3; shift 3; echo "$body" | "$node" "$bin" callback verify "$@"'
  const child = spawn('sh', ['-c', script, 'sh', body, process.execPath, BIN, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return finished(child)
}

function noContradiction(stdout: string): void {
  const hashes = [...stdout.matchAll(/mismatch: (\S+) is not the right hash (\S+)/g)]
  for (const [, a, b] of hashes) expect(a).not.toBe(b)
  expect(stdout).not.toMatch(/^\s*-\s*$/m)
}

describe('paywire callback verify on a body ending with a newline', () => {
  it('the body as the gateway sends it verifies (control)', async () => {
    const result = await runCli(['callback', 'verify', '--file', saved(BODY)], { env })
    expect(result.code).toBe(0)
  })

  for (const [name, ending] of [
    ['\\n', '\n'],
    ['\\r\\n', '\r\n'],
  ] as const) {
    it(`a saved file ending ${name}: exit 1, the diagnosis names the newline and says the body verifies without it`, async () => {
      const result = await runCli(['callback', 'verify', '--file', saved(BODY + ending)], { env })
      expect(result.code).toBe(1)
      expect(result.stdout).toContain('newline')
      expect(result.stdout).toContain('verifies without it')
      noContradiction(result.stdout)
    })

    it(`a saved file ending ${name}, --show-expected: no "X is not the right hash X", no empty finding`, async () => {
      const result = await runCli(['callback', 'verify', '--show-expected', '--file', saved(BODY + ending)], { env })
      expect(result.code).toBe(1)
      expect(result.stdout).toContain('newline')
      noContradiction(result.stdout)
      expect(result.stdout).not.toContain(PASSWORD)
    })

    it(`a saved file ending ${name}, --json: verified false, reason trailing_newline`, async () => {
      const result = await runCli(['callback', 'verify', '--json', '--file', saved(BODY + ending)], { env })
      expect(result.code).toBe(1)
      const answer = JSON.parse(result.stdout)
      expect(answer).toMatchObject({ verified: false, reason: 'trailing_newline', verifiesWithoutNewline: true })
      expect(answer.message).toContain('newline')
    })
  }

  it('piped through echo: exit 1, the diagnosis says how to send the body without the newline', async () => {
    const result = await echoed(BODY)
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('newline')
    expect(result.stdout).toContain('verifies without it')
    expect(result.stdout).toContain("printf '%s'")
    noContradiction(result.stdout)
  })

  it('a tampered body ending with a newline: still refused, and it does not verify without the newline either', async () => {
    const tampered = BODY.replace('12.50', '1250.00')
    const result = await runCli(['callback', 'verify', '--json', '--file', saved(`${tampered}\n`)], { env })
    expect(result.code).toBe(1)
    expect(JSON.parse(result.stdout)).toMatchObject({
      reason: 'trailing_newline',
      verifiesWithoutNewline: false,
      reasonWithoutNewline: 'hash_mismatch',
    })
  })
})

describe('paywire callback verify: the newline diagnosis says only what is true', () => {
  // In JSON a trailing newline is whitespace after the value: it changes no field (the SDK verifies
  // such a body as it is), so "changes the last field's value" would send the merchant after a
  // cause that is not one.
  const JSON_BODY = JSON.stringify(Object.fromEntries(new URLSearchParams(BODY)))

  it('a JSON body piped through echo: verified, as the SDK verifies it (exit 0), with a note naming the newline', async () => {
    const result = await echoed(JSON_BODY)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('verified: the signature matches')
    expect(result.stdout).toContain('newline')
    expect(result.stdout).not.toContain('last field')
    expect(result.stdout).toContain('changes no field')
    noContradiction(result.stdout)
  })

  it('a JSON body saved with a newline, --json: verified true with a note, no "last field"', async () => {
    const result = await runCli(['callback', 'verify', '--json', '--file', saved(`${JSON_BODY}\n`)], { env })
    expect(result.code).toBe(0)
    const answer = JSON.parse(result.stdout)
    expect(answer).toMatchObject({ verified: true, note: expect.stringContaining('newline') })
    expect(answer.note).not.toContain('last field')
  })

  it('a tampered JSON body with a newline: the newline is not blamed for the mismatch', async () => {
    const tampered = `${JSON_BODY.replace('"12.50"', '"1250.00"')}\n`
    const result = await runCli(['callback', 'verify', '--json', '--file', saved(tampered)], { env })
    expect(result.code).toBe(1)
    const answer = JSON.parse(result.stdout)
    expect(answer).toMatchObject({ verified: false, reason: 'hash_mismatch' })
    expect(answer.message).toContain('it is not the cause')
    expect(answer.message).not.toContain('last field')
  })

  it('two newlines (\\n\\n): counted as two, "without them"', async () => {
    const result = await runCli(['callback', 'verify', '--file', saved(`${BODY}\n\n`)], { env })
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('2 newlines')
    expect(result.stdout).toContain('verifies without them')
    expect(result.stdout).not.toContain('a byte')
  })

  it('a tampered body with a newline, --json --show-expected: the message still names the newline', async () => {
    const tampered = `${BODY.replace('12.50', '1250.00')}\n`
    const result = await runCli(['callback', 'verify', '--json', '--show-expected', '--file', saved(tampered)], { env })
    expect(result.code).toBe(1)
    const answer = JSON.parse(result.stdout)
    expect(answer).toMatchObject({ reason: 'trailing_newline', reasonWithoutNewline: 'hash_mismatch' })
    expect(answer.message).toContain('newline')
    expect(result.stdout).not.toContain(PASSWORD)
  })

  it('a carriage return alone is no newline: refused as a mismatch, never "verifies without"', async () => {
    const result = await runCli(['callback', 'verify', '--json', '--file', saved(`${BODY}\r`)], { env })
    expect(result.code).toBe(1)
    const answer = JSON.parse(result.stdout)
    expect(answer.reason).toBe('hash_mismatch')
    expect(result.stdout).not.toContain('verifies without')
  })
})

describe('a hash with whitespace around it is shown as received, never as two equal values', () => {
  it('callback verify --show-expected with hash=X%20: the finding names the whitespace', async () => {
    const body = `${new URLSearchParams(FIELDS).toString()}&hash=%20${coreutilsHash(SIGNED_TEXT)}`
    const result = await runCli(['callback', 'verify', '--show-expected', '--file', saved(body)], { env })
    expect(result.code).toBe(1)
    noContradiction(result.stdout)
    expect(result.stdout).toContain('whitespace around the hash')
  })
})
