/** Command-line parsing on Node's `util.parseArgs`, with errors in our words (exit code 2). */

import { type ParseArgsConfig, parseArgs } from 'node:util'
import { UsageError } from './io.js'

type Options = NonNullable<ParseArgsConfig['options']>

/** Parsed options and positionals of one command. */
export interface Parsed {
  readonly values: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>
  readonly positionals: readonly string[]
}

/**
 * Parses `argv` for `command` (e.g. `sign`); unknown options, a missing value and surplus
 * positionals are usage errors that name the option and point at `--help`.
 */
export function parse(command: string, argv: readonly string[], options: Options, maxPositionals: number): Parsed {
  let parsed: Parsed
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true })
  } catch (error) {
    throw new UsageError(describeParseError(error, command), command)
  }
  if (parsed.positionals.length > maxPositionals) {
    const extra = parsed.positionals.slice(maxPositionals).join(' ')
    throw new UsageError(`unexpected argument "${extra}" for paywire ${command}`, command)
  }
  return parsed
}

function describeParseError(error: unknown, command: string): string {
  const code = (error as { code?: string }).code
  const message = error instanceof Error ? error.message : String(error)
  // Node quotes the option as '--port' or as '--port <value>'; keep the name alone.
  const option = /'(--?[\w-]+)/.exec(message)?.[1] ?? /(--?[\w-]+)/.exec(message)?.[1] ?? 'an option'
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `paywire ${command} has no option ${option}`
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `option ${option} of paywire ${command} needs a value`
  return `cannot read the command line of paywire ${command}`
}

/** A string option's value, or `undefined`. */
export function text(parsed: Parsed, name: string): string | undefined {
  const value = parsed.values[name]
  return typeof value === 'string' ? value : undefined
}

/** A repeatable string option's values, in order. */
export function texts(parsed: Parsed, name: string): string[] {
  const value = parsed.values[name]
  if (value === undefined) return []
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string')
}

/** A boolean flag. */
export function flag(parsed: Parsed, name: string): boolean {
  return parsed.values[name] === true
}

/** `--field name=value` pairs, in order; a pair without `=` or with an empty name is a usage error. */
export function fieldPairs(command: string, pairs: readonly string[]): Array<[string, string]> {
  return pairs.map((pair) => {
    const at = pair.indexOf('=')
    if (at <= 0) throw new UsageError(`--field takes name=value (e.g. --field trans_id=abc), got "${pair}"`, command)
    return [pair.slice(0, at), pair.slice(at + 1)]
  })
}

/** One of `allowed`, or a usage error naming the option and its choices. */
export function oneOf<T extends string>(command: string, option: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T
  throw new UsageError(`--${option} must be ${allowed.join(' or ')}, got "${value}"`, command)
}

/** A whole number within bounds, or a usage error naming the option. */
export function wholeNumber(command: string, option: string, value: string, min: number, max: number): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${option} must be a whole number from ${min} to ${max}, got "${value}"`, command)
  }
  return n
}
