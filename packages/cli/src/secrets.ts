/**
 * Secrets come from an environment variable or a hidden prompt, never from the command line: argv
 * is readable by every user of the machine (`ps`, `/proc/<pid>/cmdline`) and lands in shell history.
 */

import { type Io, UsageError } from './io.js'

/** The variable `sign` and `callback` read the card password from unless `--password-env` names another. */
export const DEFAULT_PASSWORD_ENV = 'PAYWIRE_CARD_PASSWORD'

/**
 * The card password: from `$variable`, else a hidden prompt when stdin is a terminal that nothing
 * else is reading; otherwise a usage error naming the variable.
 */
export async function readPassword(io: Io, command: string, variable: string, stdinBusy = false): Promise<string> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) {
    throw new UsageError(`--password-env takes the name of an environment variable, got "${variable}"`, command)
  }
  const fromEnv = io.env[variable]
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv
  if (io.stdin.isTTY && !stdinBusy) {
    const typed = await promptHidden(io.stdin, `Card gateway password (from ${variable} when set; input hidden): `)
    if (typed !== '') return typed
  }
  throw new UsageError(
    `no password: set ${variable}${variable === DEFAULT_PASSWORD_ENV ? ' (or name another variable with --password-env)' : ''}. paywire never takes a password as an argument, where other users can read it in ps; the simulator's sandbox password is sim-password`,
    command,
  )
}

/** Reads one line from the terminal without echoing it. */
async function promptHidden(stdin: NodeJS.ReadStream, question: string): Promise<string> {
  process.stderr.write(question)
  stdin.setRawMode(true)
  stdin.resume()
  let typed = ''
  try {
    for await (const chunk of stdin) {
      for (const ch of String(chunk)) {
        if (ch === '\r' || ch === '\n') return typed
        if (ch === '\u0003') throw new UsageError('cancelled', 'prompt') // Ctrl-C
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1)
        else typed += ch
      }
    }
    return typed
  } finally {
    stdin.setRawMode(false)
    stdin.pause()
    process.stderr.write('\n')
  }
}
