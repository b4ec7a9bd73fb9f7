/**
 * Decoders of answers a service does not document: a result type names the fields the SDK knows
 * of, and its decoder checks the JSON kind of each one present, so the type never promises what the
 * answer does not hold. Every other member passes through as it came (`unknown`). One decoder for
 * the ProblemDetails services (remittance, bill payment).
 */

import type { RejectAnswer } from './operation.js'

/**
 * The JSON kinds a known field may hold. `null` is accepted for every field: services write it for an
 * empty value. `text` is a string field whose service may write a number instead (the card gateway's
 * amounts and ids): the number is read as its decimal text, so the field's `string` type holds.
 */
export type FieldKind = 'string' | 'text' | 'string or number' | 'boolean' | 'list of strings or numbers'

/** The named members of a result interface, without its open index signature. */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : K]: T[K] }

type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

/**
 * The kind a declared field type stands for, exactly: a field typed `number` alone, or any type the
 * decoder cannot check, has none (`never`), so a kinds object naming that field fails to compile.
 */
type KindOf<Declared, T = Exclude<Declared, null | undefined>> =
  Exactly<T, boolean> extends true
    ? 'boolean'
    : Exactly<T, string> extends true
      ? 'string' | 'text'
      : Exactly<T, string | number> extends true
        ? 'string or number'
        : Exactly<T, readonly (string | number)[]> extends true
          ? 'list of strings or numbers'
          : never

/** The kind of every known field of `T`, checked against the interface by the compiler: they cannot drift apart. */
export type FieldKinds<T> = { readonly [K in KnownKeys<T>]-?: KindOf<T[K]> }

/** A decoder: the checked result, or `undefined` for an empty answer (or a JSON `null`). */
export type AnswerDecoder<Result> = (value: unknown, reject: RejectAnswer) => Result | undefined

const ADVICE = 'pass a schema to accept another shape'

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object'
  return `a ${typeof value}`
}

function holds(kind: FieldKind, value: unknown): boolean {
  if (value === null) return true
  switch (kind) {
    case 'string':
      return typeof value === 'string'
    case 'text':
    case 'string or number':
      return typeof value === 'string' || typeof value === 'number'
    case 'boolean':
      return typeof value === 'boolean'
    case 'list of strings or numbers':
      return Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number')
  }
}

/** The first known field of `record` whose value is not of its kind, in words; `undefined` when all are. */
function fieldProblem(record: object, kinds: Readonly<Record<string, FieldKind>>, at: string): string | undefined {
  for (const field in kinds) {
    const kind = kinds[field] as FieldKind
    if (!Object.hasOwn(record, field)) continue
    const value = (record as Record<string, unknown>)[field]
    if (!holds(kind, value)) return `${at}${field} is ${describe(value)}, not a ${kind}`
  }
  return undefined
}

function isRecord(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The decoder of a single record: a JSON object whose known fields hold their kinds. */
export function recordAnswer<T>(kinds: FieldKinds<T>): AnswerDecoder<T> {
  const textFields = textFieldsOf(kinds)
  // Annotated parameters: `reject` returns `never`, and only then does it narrow `value` below.
  return (value: unknown, reject: RejectAnswer) => {
    if (value === undefined || value === null) return undefined
    if (!isRecord(value)) reject(`a JSON object (or no body) was expected, not ${describe(value)}; ${ADVICE}`)
    const problem = fieldProblem(value, kinds, '')
    if (problem !== undefined) reject(`${problem}; ${ADVICE}`)
    return (textFields.length > 0 ? withText(value, textFields) : value) as T
  }
}

/** The `text` fields of `kinds`, found once per decoder rather than on every answer. */
function textFieldsOf(kinds: Readonly<Record<string, FieldKind>>): readonly string[] {
  return Object.keys(kinds).filter((field) => kinds[field] === 'text')
}

/** `record`, with each number in a `text` field written as its decimal text (a copy, only when one is). */
function withText(record: object, textFields: readonly string[]): object {
  let copy: Record<string, unknown> | undefined
  for (const field of textFields) {
    const value = (record as Record<string, unknown>)[field]
    if (typeof value !== 'number' || !Object.hasOwn(record, field)) continue
    copy ??= { ...record }
    copy[field] = String(value)
  }
  return copy ?? record
}

/** The decoder of a list: a JSON array of records whose known fields hold their kinds. */
export function listAnswer<T>(kinds: FieldKinds<T>): AnswerDecoder<readonly T[]> {
  const textFields = textFieldsOf(kinds)
  return (value: unknown, reject: RejectAnswer) => {
    if (value === undefined || value === null) return undefined
    if (!Array.isArray(value)) reject(`a JSON array (or no body) was expected, not ${describe(value)}; ${ADVICE}`)
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index]
      if (!isRecord(item)) reject(`item ${index} is ${describe(item)}, not a JSON object; ${ADVICE}`)
      const problem = fieldProblem(item, kinds, `item ${index}: `)
      if (problem !== undefined) reject(`${problem}; ${ADVICE}`)
    }
    return (textFields.length > 0
      ? value.map((item: object) => withText(item, textFields))
      : value) as unknown as readonly T[]
  }
}
