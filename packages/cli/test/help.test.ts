/** Every command has --help with examples; usage errors exit 2 and say what was wrong. */

import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { BIN } from './build-bin.js'
import { hasCommand, runCli } from './helpers.js'

const COMMANDS = [[], ['sim'], ['sign'], ['callback'], ['callback', 'verify'], ['callback', 'send']]

describe('paywire --help', () => {
  it.each(COMMANDS)(
    'paywire %s --help prints usage, examples (but callback) and exit codes, exit 0',
    async (...command) => {
      const result = await runCli([...command, '--help'])
      expect(result.code).toBe(0)
      expect(result.stderr).toBe('')
      expect(result.stdout).toContain('Usage: paywire')
      expect(result.stdout).toContain('Exit codes: 0 ok, 1 mismatch or failure, 2 usage error.')
      if (command.length > 0 && command.join(' ') !== 'callback') expect(result.stdout).toContain('Examples:')
    },
  )

  it('help <command> and -h are the same text as --help', async () => {
    const viaHelp = await runCli(['help', 'callback', 'send'])
    const viaFlag = await runCli(['callback', 'send', '-h'])
    expect(viaHelp.code).toBe(0)
    expect(viaHelp.stdout).toBe(viaFlag.stdout)
  })

  it('the commands that take a password say it never comes from an argument, and why', async () => {
    for (const command of [['sign'], ['callback', 'verify'], ['callback', 'send']]) {
      const { stdout } = await runCli([...command, '--help'])
      expect(stdout).toContain('PAYWIRE_CARD_PASSWORD')
      expect(stdout).toContain('never from an argument')
      expect(stdout).toContain('(ps)')
    }
  })

  it('--version prints the package version', async () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string
    }
    const result = await runCli(['--version'])
    expect(result).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' })
  })
})

describe('usage errors exit 2 and name the problem', () => {
  it('no command: the overview on stderr, exit 2', async () => {
    const result = await runCli([])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('Usage: paywire <command>')
  })

  it('an unknown command', async () => {
    const result = await runCli(['deploy'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('paywire: no command "deploy"')
    expect(result.stderr).toContain('Run "paywire --help" for usage.')
  })

  it('an unknown callback subcommand', async () => {
    const result = await runCli(['callback', 'replay'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('no command "callback replay"')
    expect(result.stderr).toContain('paywire callback --help')
  })

  it('an unknown option names it and the command, in our words', async () => {
    const result = await runCli(['sign', 'CAPTURE', '--pasword', 'x'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('paywire sign has no option --pasword')
    expect(result.stderr).toContain('Run "paywire sign --help" for usage.')
    expect(result.stderr).not.toMatch(/Unknown option|ERR_PARSE_ARGS/)
  })

  it('an option without its value', async () => {
    const result = await runCli(['sim', '--port'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('option --port of paywire sim needs a value')
  })

  it('a surplus argument', async () => {
    const result = await runCli(['sim', 'now'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('unexpected argument "now" for paywire sim')
  })
})

describe('colour', () => {
  it('piped output is plain text even when a terminal would get colour', async () => {
    const result = await runCli(['sign', 'CAPTURE', '--field', 'trans_id=t', '--explain'], {
      env: { PATH: process.env['PATH'] ?? '', PAYWIRE_CARD_PASSWORD: 'p', FORCE_COLOR: '1' },
    })
    expect(result.code).toBe(0)
    expect(result.stdout).not.toContain('\u001b[')
  })
})

describe.runIf(hasCommand('script'))('colour on a terminal (a real pty through script(1))', () => {
  const inPty = (env: string) =>
    execFileSync(
      'script',
      [
        '-qec',
        `${env} PAYWIRE_CARD_PASSWORD=p "${process.execPath}" "${BIN}" sign CAPTURE --field trans_id=t --explain`,
        '/dev/null',
      ],
      {
        encoding: 'utf8',
        env: { PATH: process.env['PATH'] ?? '' },
      },
    )

  it('a terminal gets colour', () => {
    expect(inPty('')).toContain('\u001b[1m')
  })

  it('never with NO_COLOR', () => {
    const output = inPty('NO_COLOR=1')
    expect(output).toContain('hash')
    expect(output).not.toContain('\u001b[')
  })
})
