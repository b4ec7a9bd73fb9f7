/**
 * `paywire callback verify` during a password rotation: `--password-env` repeated names one
 * variable per password (new first). A body signed with either verifies and says which one did;
 * a body signed with neither is refused. Passwords still never come from argv.
 */

import { describe, expect, it } from 'vitest'
import { baseEnv, coreutilsHash, runCli, SAMPLE_CALLBACK } from './helpers.js'

const { fields: FIELDS } = SAMPLE_CALLBACK
const NEW = 'new-pw'
const OLD = 'old-pw'
const signedText = (password: string) => `PAY-1A-712.50EURTEA${password.toUpperCase()}`
const body = (password: string) =>
  new URLSearchParams({ ...FIELDS, hash: coreutilsHash(signedText(password)) }).toString()
const env = baseEnv({ NEW_PW: NEW, OLD_PW: OLD })
const rotation = ['--password-env', 'NEW_PW', '--password-env', 'OLD_PW']
const verify = (input: string, ...args: string[]) => runCli(['callback', 'verify', ...args], { env, input })

describe('paywire callback verify with two passwords', () => {
  it('a body signed with the new password verifies, no note', async () => {
    const result = await verify(body(NEW), ...rotation)
    expect(result.code).toBe(0)
    expect(result.stdout).not.toContain('OLD_PW')
  })

  it('a body signed with the old one verifies and names the variable that verified it', async () => {
    const result = await verify(body(OLD), ...rotation)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('verified: the signature matches')
    expect(result.stdout).toContain('$OLD_PW')
    const json = await verify(body(OLD), ...rotation, '--json')
    expect(JSON.parse(json.stdout)).toMatchObject({ verified: true, event: { passwordIndex: '1' } })
  })

  it('a body signed with neither: refused; no password printed', async () => {
    const result = await verify(body('other-pw'), ...rotation)
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('hash_mismatch')
    expect(result.stdout + result.stderr).not.toContain(NEW)
    expect(result.stdout + result.stderr).not.toContain(OLD)
  })

  it('one variable alone keeps the old behaviour: the old password does not verify', async () => {
    expect((await verify(body(OLD), '--password-env', 'NEW_PW')).code).toBe(1)
  })

  it('a variable named twice or unset: exit 2 naming it', async () => {
    const twice = await verify(body(NEW), '--password-env', 'NEW_PW', '--password-env', 'NEW_PW')
    expect(twice.code).toBe(2)
    expect(twice.stderr).toContain('NEW_PW')
    const unset = await verify(body(NEW), '--password-env', 'NEW_PW', '--password-env', 'MISSING_PW')
    expect(unset.code).toBe(2)
    expect(unset.stderr).toContain('MISSING_PW')
  })

  it('--password is still refused, and the refusal points at --password-env for a rotation', async () => {
    const result = await verify(body(NEW), '--password', NEW, '--password', OLD)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--password-env')
    expect(result.stderr).toContain('rotation')
    expect(result.stderr).not.toContain(NEW)
  })

  it('a variable holding an unusable password (blank, padded, a control character): exit 2 naming the variable, not an SDK option', async () => {
    for (const value of ['   ', ' old-pw', 'old-pw\t', 'old\u0007pw']) {
      const result = await runCli(['callback', 'verify', ...rotation], {
        env: baseEnv({ NEW_PW: NEW, OLD_PW: value }),
        input: body(NEW),
      })
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('$OLD_PW')
      expect(result.stderr).not.toContain('callbackPasswords')
      expect(result.stderr).not.toContain('CardGateway')
      expect(result.stderr).not.toContain(value.trim() === '' ? 'never-there' : 'old-pw')
    }
    const first = await runCli(['callback', 'verify', ...rotation], {
      env: baseEnv({ NEW_PW: `${NEW} `, OLD_PW: OLD }),
      input: body(NEW),
    })
    expect(first.code).toBe(2)
    expect(first.stderr).toContain('$NEW_PW')
    expect(first.stderr).not.toContain('new-pw')
  })
})
