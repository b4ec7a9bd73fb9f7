/**
 * Bound answers: an operation row names which answer field must repeat which value the request
 * sent, and the engine believes a 2xx answer only when it is bound to its request. An answer about
 * another subject (a proxy or cache answering for another request, a stale answer on a reused
 * connection, a service fault) is refused before anything reads it, for every caller of the row.
 */

import type { AnswerBinding, SentRequest } from './operation.js'

/** One request value and the answer fields that may repeat it. */
interface Pair {
  readonly sent: string
  readonly answer: readonly string[]
}

/** The request's value at a dotted path of the wire object (`order.number`). */
function at(record: unknown, path: string): unknown {
  let value = record
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
    value = Object.hasOwn(value, part) ? (value as Record<string, unknown>)[part] : undefined
  }
  return value
}

/** A value as the wire carries it: a string as it is, a finite number as its decimal text. */
function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}

/** The values this call sent that a binding names, each with its answer fields. */
function pairsOf(binding: AnswerBinding, sent: SentRequest): Pair[] {
  const pairs: Pair[] = []
  const add = (value: unknown, answer: readonly string[]) => {
    const text = asText(value)
    if (text !== undefined) pairs.push({ sent: text, answer })
  }
  for (const [field, answer] of Object.entries(binding.wire ?? {})) add(at(sent.wire, field), answer)
  for (const [name, answer] of Object.entries(binding.path ?? {})) add(sent.path[name], answer)
  if (binding.idempotencyKey) add(sent.idempotencyKey, binding.idempotencyKey)
  return pairs
}

/** `a`, `a and b`, `a, b and c` (or with `or`). */
function list(items: readonly string[], word: 'and' | 'or'): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} ${word} ${items.at(-1)}`
}

/** How a field names a value, in words: `trans_id "T2"`, `referenceNumber 1002`, `trans_id as an object`. */
function naming(field: string, value: unknown): string {
  if (typeof value === 'string') return `${field} ${JSON.stringify(value)}`
  if (typeof value === 'number' || typeof value === 'boolean') return `${field} ${String(value)}`
  return `${field} as ${Array.isArray(value) ? 'an array' : 'an object'}`
}

function isRecord(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Why `answer` (a 2xx answer as the service's reader read it) is not bound to the request `sent`,
 * in words naming the rule and what to do; `undefined` when it is bound. Early returns, one rule
 * each: a value repeated exactly binds; a named value with any difference (another subject, a
 * trailing space, another case) does not; naming none binds nothing, which only a lookup refuses.
 */
export function unboundAnswer(binding: AnswerBinding, sent: SentRequest, answer: unknown): string | undefined {
  const advice = binding.kind === 'lookup' ? 'act on none of it, and look the subject up again' : 'act on none of it'
  const refuse = (problem: string) => `${problem} (rule ${binding.rule}); ${advice}`
  for (const pair of pairsOf(binding, sent)) {
    const value = JSON.stringify(pair.sent)
    const named = isRecord(answer)
      ? pair.answer
          .map((field) => [field, at(answer, field)] as const)
          .filter(([, shown]) => shown !== undefined && shown !== null)
      : []
    if (named.length === 0) {
      if (binding.kind === 'action') continue
      if (!isRecord(answer)) return refuse(`it holds no record, so nothing binds it to the ${value} this call sent`)
      return refuse(`it names no ${list(pair.answer, 'or')}, so nothing binds it to the ${value} this call sent`)
    }
    if (named.some(([, shown]) => asText(shown) === pair.sent)) continue
    const shown = named.map(([field, v]) => naming(field, v))
    return refuse(`it names ${list(shown, 'and')}, not the ${value} this call sent`)
  }
  return undefined
}

/**
 * Why an answer that came on a connection which carried an earlier answer is not believed as this
 * request's, or `undefined` when it is: only a 2xx that names every value the binding names, each
 * exactly. A refusal or an error envelope names no subject, and an answer that leaves a value out
 * could be any request's: either may be a stale second answer to an earlier request.
 */
export function unboundOnReuse(
  binding: AnswerBinding,
  sent: SentRequest,
  status: number,
  answer: unknown,
): string | undefined {
  if (status < 200 || status >= 300)
    return `a ${status} answer names no subject that binds it to this call (rule ${binding.rule})`
  for (const pair of pairsOf(binding, sent)) {
    const shown = isRecord(answer) ? pair.answer.map((field) => at(answer, field)) : []
    if (shown.some((value) => asText(value) === pair.sent)) continue
    return `it does not name the ${JSON.stringify(pair.sent)} this call sent in ${list(pair.answer, 'or')} (rule ${binding.rule})`
  }
  return undefined
}

/** What a request is about, as its binding names it: the operation and each bound value sent. */
export function subjectOf(operation: string, binding: AnswerBinding, sent: SentRequest): string {
  return [operation, ...pairsOf(binding, sent).map((pair) => pair.sent)].join('\u0000')
}
