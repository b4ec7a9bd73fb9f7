/**
 * `paywire`: reads the command, then loads only that command's module, so `paywire --help` does not
 * pay for the SDKs or msw.
 */

import { readFileSync } from 'node:fs'
import { HELP } from './help.js'
import { EXIT, type ExitCode, type Io, paintFor, UsageError } from './io.js'

type Command = (io: Io, argv: readonly string[]) => Promise<ExitCode>

const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  sim: async () => (await import('./commands/sim.js')).sim,
  sign: async () => (await import('./commands/sign.js')).sign,
  'callback verify': async () => (await import('./commands/callback.js')).verify,
  'callback send': async () => (await import('./commands/callback-send.js')).send,
  'callback capture': async () => (await import('./commands/callback-capture.js')).capture,
}

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  return manifest.version
}

/** Runs one command line and returns its exit code. */
async function main(argv: readonly string[]): Promise<ExitCode> {
  const io: Io = {
    argv,
    env: process.env,
    stdin: process.stdin,
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    paint: paintFor(process.stdout, process.env),
  }
  const [first, second] = argv
  if (first === undefined || first === '-h' || first === '--help' || first === 'help') {
    const topic = first === 'help' ? argv.slice(1).join(' ') : ''
    if (topic !== '' && HELP[topic] === undefined)
      return usage(io, `no command "${topic}"`, 'paywire')
      // No command at all is a usage error: the overview goes to stderr with exit code 2.
    ;(first === undefined ? io.err : io.out)(HELP[topic || 'paywire'] ?? '')
    return first === undefined ? EXIT.usage : EXIT.ok
  }
  if (first === '-v' || first === '--version') {
    io.out(version())
    return EXIT.ok
  }
  const name = first === 'callback' && second !== undefined && !second.startsWith('-') ? `callback ${second}` : first
  const rest = argv.slice(name.split(' ').length)
  if (rest.includes('-h') || rest.includes('--help') || (name === 'callback' && rest.length === 0)) {
    if (HELP[name] === undefined) return usage(io, `no command "${name}"`, 'paywire')
    io.out(HELP[name] ?? '')
    return EXIT.ok
  }
  const load = COMMANDS[name]
  if (!load) return usage(io, `no command "${name}"`, name.startsWith('callback') ? 'callback' : 'paywire')
  try {
    return await (await load())(io, rest)
  } catch (error) {
    if (error instanceof UsageError) return usage(io, error.message, error.command)
    throw error
  }
}

function usage(io: Io, message: string, command: string): ExitCode {
  io.err(`paywire: ${message}`)
  const topic = HELP[command] !== undefined ? command : 'paywire'
  io.err(`Run "paywire ${topic === 'paywire' ? '' : `${topic} `}--help" for usage.`)
  return EXIT.usage
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`paywire: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = EXIT.failure
  },
)
