/**
 * Bound answers: an operation row names which answer field must repeat which value the request
 * sent, and the engine believes a 2xx answer only when it is bound to its request. An answer about
 * another subject (a proxy or cache answering for another request, a stale answer on a reused
 * connection, a service fault) is refused before anything reads it, for every caller of the row.
 */

import type { AnswerBinding, SentRequest } from './operation.js'

/** A dotted field path (`order.number`), split once per row. */
type FieldPath = readonly string[]

/** One value a binding names: where the request holds it, and the answer fields that may repeat it. */
interface Named {
  readonly from: (sent: SentRequest) => unknown
  /** The answer fields as the row writes them (for messages). */
  readonly answer: readonly string[]
  readonly answerPaths: readonly FieldPath[]
}

/** One request value and the answer fields that may repeat it. */
interface Pair {
  readonly sent: string
  readonly named: Named
}

/** The value at a dotted path of a record (`undefined` when any step is not a plain object). */
function at(record: unknown, path: FieldPath): unknown {
  let value = record
  for (let i = 0; i < path.length; i++) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
    const part = path[i] as string
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

/** Each row's binding, read once: the rows are frozen, so what it names never changes. */
const namedByBinding = new WeakMap<AnswerBinding, readonly Named[]>()

function namedOf(binding: AnswerBinding): readonly Named[] {
  let named = namedByBinding.get(binding)
  if (named === undefined) {
    const of = (from: Named['from'], answer: readonly string[]): Named => ({
      from,
      answer,
      answerPaths: answer.map((field) => field.split('.')),
    })
    named = [
      ...Object.entries(binding.wire ?? {}).map(([field, answer]) => {
        const path = field.split('.')
        return of((sent) => at(sent.wire, path), answer)
      }),
      ...Object.entries(binding.path ?? {}).map(([name, answer]) => of((sent) => sent.path[name], answer)),
      ...(binding.idempotencyKey ? [of((sent) => sent.idempotencyKey, binding.idempotencyKey)] : []),
    ]
    namedByBinding.set(binding, named)
  }
  return named
}

/** Whether one of the answer fields of `named` repeats `sent` exactly. */
function repeats(answer: unknown, pair: Pair): boolean {
  const paths = pair.named.answerPaths
  for (let i = 0; i < paths.length; i++) {
    if (asText(at(answer, paths[i] as FieldPath)) === pair.sent) return true
  }
  return false
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
 * One request as its row's binding names it: the values it sent, read once when the request is
 * built, and the checks of an answer against them. The checks that pass allocate nothing: they run
 * on every answer, the messages only on a refusal.
 */
export class BoundRequest {
  readonly #binding: AnswerBinding
  readonly #pairs: readonly Pair[]

  constructor(binding: AnswerBinding, sent: SentRequest) {
    this.#binding = binding
    const pairs: Pair[] = []
    for (const named of namedOf(binding)) {
      const text = asText(named.from(sent))
      if (text !== undefined) pairs.push({ sent: text, named })
    }
    this.#pairs = pairs
  }

  /**
   * Why `answer` (a 2xx answer as the service's reader read it) is not bound to the request, in
   * words naming the rule and what to do; `undefined` when it is bound. One rule per case: a value
   * repeated exactly binds; a named value with any difference (another subject, a trailing space,
   * another case) does not; naming none binds nothing, which only a lookup refuses.
   */
  unbound(answer: unknown): string | undefined {
    const binding = this.#binding
    for (const pair of this.#pairs) {
      if (isRecord(answer) && repeats(answer, pair)) continue
      const value = JSON.stringify(pair.sent)
      const advice =
        binding.kind === 'lookup' ? 'act on none of it, and look the subject up again' : 'act on none of it'
      const refuse = (problem: string) => `${problem} (rule ${binding.rule}); ${advice}`
      const named = isRecord(answer)
        ? pair.named.answer
            .map((field, i) => [field, at(answer, pair.named.answerPaths[i] as FieldPath)] as const)
            .filter(([, shown]) => shown !== undefined && shown !== null)
        : []
      if (named.length === 0) {
        if (binding.kind === 'action') continue
        if (!isRecord(answer)) return refuse(`it holds no record, so nothing binds it to the ${value} this call sent`)
        return refuse(
          `it names no ${list(pair.named.answer, 'or')}, so nothing binds it to the ${value} this call sent`,
        )
      }
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
  unboundOnReuse(status: number, answer: unknown): string | undefined {
    const { rule } = this.#binding
    if (status < 200 || status >= 300)
      return `a ${status} answer names no subject that binds it to this call (rule ${rule})`
    for (const pair of this.#pairs) {
      if (isRecord(answer) && repeats(answer, pair)) continue
      return `it does not name the ${JSON.stringify(pair.sent)} this call sent in ${list(pair.named.answer, 'or')} (rule ${rule})`
    }
    return undefined
  }

  /** What the request is about, as its binding names it: the operation and each bound value sent. */
  subject(operation: string): string {
    let subject = operation
    for (const pair of this.#pairs) subject += `\u0000${pair.sent}`
    return subject
  }
}
