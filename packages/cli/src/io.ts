/** What every command writes to and reads from: streams, environment, colour and exit codes. */

/** Exit codes, the same for every command (documented in `paywire --help`). */
export const EXIT = Object.freeze({ ok: 0, failure: 1, usage: 2 })

/** A command's result: the exit code the process ends with. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** A wrong command line: printed with the command's usage line and exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError'
  constructor(
    message: string,
    readonly command: string,
  ) {
    super(message)
  }
}

/** The process around a command, passed in so every command reads one place. */
export interface Io {
  readonly argv: readonly string[]
  readonly env: Readonly<Record<string, string | undefined>>
  readonly stdin: NodeJS.ReadStream
  out(line: string): void
  err(line: string): void
  readonly paint: Paint
}

/** ANSI styles, or plain text when colour is off. */
export interface Paint {
  readonly bold: (text: string) => string
  readonly dim: (text: string) => string
  readonly green: (text: string) => string
  readonly red: (text: string) => string
  readonly yellow: (text: string) => string
}

/**
 * Colour only on a terminal and never with `NO_COLOR` set to anything non-empty (the no-color.org
 * convention), so piped output and logs stay plain text.
 */
export function paintFor(stream: NodeJS.WriteStream, env: Readonly<Record<string, string | undefined>>): Paint {
  const on = stream.isTTY === true && !env['NO_COLOR']
  const style = (open: number, close: number) => (text: string) =>
    on ? `\u001b[${open}m${text}\u001b[${close}m` : text
  return { bold: style(1, 22), dim: style(2, 22), green: style(32, 39), red: style(31, 39), yellow: style(33, 39) }
}

/** One JSON document per line: what `--json` prints. */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value)
}
