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

/**
 * Text from outside (a callback's fields, a path, an answer body) made safe for a terminal line:
 * control characters become escapes, so a newline cannot forge a second line and an escape
 * sequence cannot repaint the screen.
 */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (ch) =>
    ch === '\n'
      ? '\\n'
      : ch === '\r'
        ? '\\r'
        : ch === '\t'
          ? '\\t'
          : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
}

/** Query parameter names whose values are masked wherever a URL or path is shown. */
export const SECRET_QUERY_NAME = /key|secret|pass|pwd|token|hash|sign|auth|card|pan|cvv|cvc|pin|session/i

/** A URL or path as shown to people: secret-looking query values masked, control characters escaped. */
export function displayPath(url: URL, secretValues: ReadonlySet<string> = new Set()): string {
  if (url.search === '') return printable(url.pathname)
  const query = [...url.searchParams]
    .map(([k, v]) => {
      const secret = SECRET_QUERY_NAME.test(k) || secretValues.has(v) || /^\d{12,19}$/.test(v.replace(/[\s-]/g, ''))
      return `${encodeURIComponent(k)}=${secret ? '***' : encodeURIComponent(v)}`
    })
    .join('&')
  return printable(`${url.pathname}?${query}`)
}

/** The whole URL as shown: origin and masked path. */
export function displayUrl(url: URL): string {
  return `${url.origin}${displayPath(url)}`
}

/**
 * An http(s) URL for a callback endpoint, or a usage error naming `option`: credentials in the URL
 * are refused (fetch will not send them, and they would be printed in every log line).
 */
export function endpointUrl(command: string, option: string, value: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(`--${option} must be an absolute http(s) URL, got "${printable(value)}"`, command)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--${option} must be an http or https URL, got "${displayUrl(url)}"`, command)
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(
      `--${option} must not carry credentials (user:password@): they would not be sent, and would be printed in logs`,
      command,
    )
  }
  return url
}

/** Why a fetch got no answer, in words: refused, unknown host, else the cause's code or message. */
export function networkFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  if (cause?.code === 'ECONNREFUSED') return 'connection refused (is the server listening?)'
  if (cause?.code === 'ENOTFOUND') return 'unknown host'
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error))
}
