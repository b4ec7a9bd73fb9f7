/**
 * `paywire sign`: every expected hash is computed here by coreutils (md5sum, sha256sum, sha1sum) over
 * text written out by hand, never by the SDK; every mistake is made on purpose, then diagnosed.
 */

import { describe, expect, it } from 'vitest'
import { baseEnv, coreutilsDigest, coreutilsHash, runCli } from './helpers.js'

const PASSWORD = 'Pa55-word'
const env = baseEnv({ PAYWIRE_CARD_PASSWORD: PASSWORD })
const sign = (...args: string[]) => runCli(['sign', ...args], { env })

describe('paywire sign: the hash', () => {
  it('GET_TRANS_STATUS signs trans_id then the password, ASCII-uppercased, md5 then sha1', async () => {
    const result = await sign('GET_TRANS_STATUS', '--field', 'trans_id=8f0c-ab')
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`${coreutilsHash('8F0C-ABPA55-WORD')}\n`)
  })

  it('an SDK name, an action in any case and the action give one hash', async () => {
    const expected = `${coreutilsHash('T-1PA55-WORD')}\n`
    for (const name of ['s2s.capture', 'CAPTURE', 'capture']) {
      expect((await sign(name, '--field', 'trans_id=t-1')).stdout).toBe(expected)
    }
  })

  it('checkout.purchase signs the nested order fields in order: number, amount, currency, description', async () => {
    const result = await sign(
      'checkout.purchase',
      '--field',
      'order.description=Blue shoes',
      '--field',
      'order.currency=USD',
      '--field',
      'order.amount=10.00',
      '--field',
      'order.number=A-1',
    )
    expect(result.stdout).toBe(`${coreutilsHash('A-110.00USDBLUE SHOESPA55-WORD')}\n`)
  })

  it('checkout.status signs whichever of payment_id and order_id is given', async () => {
    const result = await sign('checkout.status', '--field', 'order_id=o-9')
    expect(result.stdout).toBe(`${coreutilsHash('O-9PA55-WORD')}\n`)
  })

  it('callback signs id, order_number, order_amount, order_currency, order_description', async () => {
    const fields = ['id=p1', 'order_number=n1', 'order_amount=5.00', 'order_currency=EUR', 'order_description=d']
    const result = await sign('callback', ...fields.flatMap((f) => ['--field', f]))
    expect(result.stdout).toBe(`${coreutilsHash('P1N15.00EURDPA55-WORD')}\n`)
  })

  it('--digest sha256 hashes the uppercased text with sha256 first', async () => {
    const result = await sign('VOID', '--field', 'trans_id=v', '--digest', 'sha256')
    expect(result.stdout).toBe(`${coreutilsHash('VPA55-WORD', 'sha256')}\n`)
  })

  it('ASCII uppercasing leaves é alone; --uppercase unicode makes it É', async () => {
    const ascii = await sign('RECURRING_SALE', '--field', 'order_id=café')
    expect(ascii.stdout).toBe(`${coreutilsHash('CAFéPA55-WORD')}\n`)
    const unicode = await sign('RECURRING_SALE', '--field', 'order_id=café', '--uppercase', 'unicode')
    expect(unicode.stdout).toBe(`${coreutilsHash('CAFÉPA55-WORD')}\n`)
  })

  it('--inputs replaces the hash inputs; CREATE_SCHEDULE needs them (none are published)', async () => {
    const refused = await sign('CREATE_SCHEDULE', '--field', 'name=n')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('the hash inputs of s2s.createSchedule are not published')
    expect(refused.stdout).toBe('')
    const named = await sign(
      'CREATE_SCHEDULE',
      '--field',
      'name=gold',
      '--field',
      'payments_count=3',
      '--inputs',
      'payments_count,name',
    )
    expect(named.stdout).toBe(`${coreutilsHash('3GOLDPA55-WORD')}\n`)
  })

  it('a field outside the hash inputs is named on stderr and changes nothing', async () => {
    const result = await sign('CAPTURE', '--field', 'trans_id=t', '--field', 'amount=1.00')
    expect(result.stdout).toBe(`${coreutilsHash('TPA55-WORD')}\n`)
    expect(result.stderr).toContain('amount is not a hash input of s2s.capture')
  })

  it('--json gives every step in one object, without the password', async () => {
    const result = await sign('CAPTURE', '--field', 'trans_id=t', '--json')
    const out = JSON.parse(result.stdout)
    expect(out).toMatchObject({
      operation: 's2s.capture',
      action: 'CAPTURE',
      digest: 'md5',
      uppercase: 'ascii',
      inputs: [{ name: 'trans_id', value: 't' }],
      concatenation: 't{password}',
      uppercased: 'T{PASSWORD}',
      innerHex: coreutilsDigest('TPA55-WORD', 'md5'),
      hash: coreutilsHash('TPA55-WORD'),
    })
    expect(result.stdout).not.toMatch(/pa55-word/i)
  })
})

describe('paywire sign --explain', () => {
  it('prints the inputs in order, the texts with the password masked, the inner hex and the hash', async () => {
    const result = await sign(
      'checkout.credit',
      '--field',
      'order_id=c-1',
      '--field',
      'order_amount=7.50',
      '--field',
      'order_currency=GBP',
      '--field',
      'order_description=Refund x',
      '--explain',
    )
    expect(result.code).toBe(0)
    const lines = result.stdout.split('\n')
    expect(lines).toContain('  1. order_id = "c-1"')
    expect(lines).toContain('  4. order_description = "Refund x"')
    expect(lines).toContain('  5. password (masked)')
    expect(lines).toContain('concatenated  c-17.50GBPRefund x{password}')
    expect(lines).toContain('uppercased    C-17.50GBPREFUND X{PASSWORD}')
    expect(lines).toContain(`md5 (hex)     ${coreutilsDigest('C-17.50GBPREFUND XPA55-WORD', 'md5')}`)
    expect(lines).toContain(`hash          ${coreutilsHash('C-17.50GBPREFUND XPA55-WORD')}`)
    expect(result.stdout + result.stderr).not.toMatch(/pa55-word/i)
  })
})

describe('paywire sign --compare: which mistake made this hash', () => {
  const capture = (hash: string, ...more: string[]) =>
    sign('CAPTURE', '--field', 'trans_id=t-1', '--compare', hash, ...more)
  const credit = (hash: string) =>
    sign(
      'checkout.credit',
      '--field',
      'order_id=c-1',
      '--field',
      'order_amount=10.00',
      '--field',
      'order_currency=USD',
      '--field',
      'order_description=Shoes',
      '--compare',
      hash,
    )

  it('the right hash: match, exit 0', async () => {
    const result = await capture(coreutilsHash('T-1PA55-WORD'))
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('match:')
  })

  it.each([
    ['sha256 as the inner digest', coreutilsHash('T-1PA55-WORD', 'sha256'), 'inner digest sha256 instead of md5'],
    ['no uppercasing', coreutilsHash('t-1Pa55-word'), 'no uppercasing'],
    ['the password first', coreutilsHash('PA55-WORDT-1'), 'the password first instead of last'],
    ['echo without -n', coreutilsHash('T-1PA55-WORD\n'), 'a newline at the end (echo without -n)'],
    ['a trailing space', coreutilsHash('T-1 PA55-WORD'), 'a trailing space after trans_id'],
    ['uppercase hex', coreutilsHash('T-1PA55-WORD').toUpperCase(), 'the hash written in uppercase hex'],
    ['md5 alone', coreutilsDigest('T-1PA55-WORD', 'md5'), 'no sha1 step (the inner digest alone)'],
    [
      'uppercase inner hex',
      coreutilsDigest(coreutilsDigest('T-1PA55-WORD', 'md5').toUpperCase(), 'sha1'),
      'the inner digest fed to sha1 as uppercase hex',
    ],
  ])('%s: mismatch, exit 1, the mistake named', async (_name, hash, mistake) => {
    const result = await capture(hash)
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('mismatch:')
    expect(result.stdout).toContain(`  - ${mistake}`)
  })

  it('another input order', async () => {
    const result = await credit(coreutilsHash('10.00C-1USDSHOESPA55-WORD'))
    expect(result.stdout).toContain('  - inputs in the order order_amount, order_id, order_currency, order_description')
  })

  it('another amount string', async () => {
    const result = await credit(coreutilsHash('C-110USDSHOESPA55-WORD'))
    expect(result.stdout).toContain('  - order_amount as "10" instead of "10.00"')
  })

  it('Unicode uppercasing where the rule is ASCII-only', async () => {
    const result = await sign(
      'RECURRING_SALE',
      '--field',
      'order_id=straße',
      '--compare',
      coreutilsHash('STRASSEPA55-WORD'),
    )
    expect(result.stdout).toContain('  - Unicode uppercasing (toUpperCase, mb_strtoupper) instead of ASCII-only')
  })

  it('nothing common produces it: exit 1 and what to check', async () => {
    const result = await capture(coreutilsHash('T-1OTHER-PASSWORD'))
    expect(result.code).toBe(1)
    expect(result.stdout).toContain('No common mistake produces it. Check the password')
  })

  it('--json carries match and findings', async () => {
    const result = await capture(coreutilsHash('T-1PA55-WORD', 'sha256'), '--json')
    expect(JSON.parse(result.stdout)).toMatchObject({
      match: false,
      findings: [{ mistakes: ['inner digest sha256 instead of md5'] }],
    })
  })
})

describe('paywire sign: the password and the command line', () => {
  it('without the variable and without a terminal: exit 2, naming the variable and why not argv', async () => {
    const result = await runCli(['sign', 'CAPTURE', '--field', 'trans_id=t'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('no password: set PAYWIRE_CARD_PASSWORD')
    expect(result.stderr).toContain('ps')
    expect(result.stdout).toBe('')
  })

  it('--password-env names another variable', async () => {
    const result = await runCli(['sign', 'CAPTURE', '--field', 'trans_id=t', '--password-env', 'LIVE_PW'], {
      env: baseEnv({ LIVE_PW: 'x' }),
    })
    expect(result.stdout).toBe(`${coreutilsHash('TX')}\n`)
  })

  it('there is no --password option', async () => {
    const result = await sign('CAPTURE', '--field', 'trans_id=t', '--password', PASSWORD)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('has no option --password')
  })

  it.each([
    [['NOPE'], 'no card operation "NOPE"'],
    [[], 'name the operation to sign'],
    [['CAPTURE'], 's2s.capture signs trans_id: give --field trans_id=…'],
    [['checkout.status'], 'give --field payment_id=… or --field order_id=…'],
    [['CAPTURE', '--field', 'trans_id'], '--field takes name=value'],
    [['CAPTURE', '--field', 'trans_id=a', '--field', 'trans_id=b'], '--field trans_id is given twice'],
    [['CAPTURE', '--field', 'trans_id=a', '--digest', 'sha1'], '--digest must be md5 or sha256, got "sha1"'],
    [['CAPTURE', '--field', 'trans_id=a', '--uppercase', 'turkish'], '--uppercase must be ascii or unicode'],
    [
      ['CAPTURE', '--field', 'trans_id=a', '--password-env', 'A B'],
      '--password-env takes the name of an environment variable',
    ],
  ])('%j: exit 2 with "%s"', async (args, message) => {
    const result = await sign(...args)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
    expect(result.stdout).toBe('')
  })
})

describe('paywire sign --compare with nothing to compare', () => {
  // An empty or blank --compare (an unset shell variable, a capture of nothing) used to print
  // "mismatch:  is not the right hash …" with the compared value invisible.
  for (const given of ['', '   ', '\n']) {
    for (const preset of [
      [],
      [
        '--signature',
        'card-md5-strrev',
        '--payer-email',
        'a@b.example',
        '--card-first6',
        '411111',
        '--card-last4',
        '1111',
      ],
    ]) {
      it(`--compare ${JSON.stringify(given)} ${preset.length > 0 ? 'on card-md5-strrev' : 'on the seed scheme'}: exit 2 naming --compare`, async () => {
        const result = await sign('CAPTURE', '--field', 'trans_id=t-1', ...preset, '--compare', given)
        expect(result.code).toBe(2)
        expect(result.stderr).toContain('--compare')
        expect(result.stdout).not.toContain('mismatch')
      })
    }
  }
})
