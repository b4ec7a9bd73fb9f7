/**
 * An operation row: one endpoint of a service as data (method, base, path, params, retry,
 * idempotency, reconciliation, answer binding) and its steps. A service package describes each
 * endpoint as one row; the engine (`OperationClient`) runs it, and `resource` makes its method.
 */

import type { z } from 'zod'
import type { Reconciliation, ValidationIssue } from '../errors/errors.js'
import type { HttpMethod } from '../transport/request.js'
import type { RetryPolicy } from './retry.js'

/**
 * Where an operation's idempotency key travels: a header (bill payment's `Idempotency-Key`) or a
 * body field that names the call (remittance's `agentTransactionRef`). Whether the service
 * deduplicates on it is not assumed (`serviceDedupsIdempotencyKey`). `generate`: a UUID
 * is made when the caller gives none, so every money-moving call has a key to be found by.
 */
export type Idempotency =
  | { readonly header: string; readonly generate?: boolean }
  | { readonly bodyField: string; readonly generate?: boolean }

/** What a call sent, for its reconciliation key and its answer binding. */
export interface SentRequest {
  /** The wire object after `toWire` and `finalize` (`undefined` for operations without a body). */
  readonly wire: Readonly<Record<string, unknown>> | undefined
  /** The path variables as given. */
  readonly path: Readonly<Record<string, string | number>>
  readonly idempotencyKey: string | undefined
}

/**
 * A row's reconciliation: the key kinds it can name (what `reconcile` accepts for the operation)
 * and the key and safe lookup of one sent call.
 */
export interface ReconcileRule {
  readonly keys: readonly string[]
  readonly of: (sent: SentRequest) => Reconciliation | undefined
}

/** The retry policy of `row` for a client with context `ctx`. */
export function retryPolicyOf<Ctx>(row: Pick<Operation<Ctx>, 'retry'>, ctx: Ctx): RetryPolicy {
  return typeof row.retry === 'function' ? row.retry(ctx) : row.retry
}

/** Declares a reconcile rule (frozen, like the rows that hold it). */
export function reconcileRule(
  keys: readonly string[],
  of: (sent: SentRequest) => Reconciliation | undefined,
): ReconcileRule {
  return Object.freeze({ keys: Object.freeze([...keys]), of })
}

/**
 * How strict a row's binding is. `lookup`: the answer must name the subject (a status lookup that
 * names none confirms nothing). `action`: a money-moving call's answer may name none (success bodies
 * are mostly undocumented), but one that names another subject is refused.
 */
export type AnswerBindingKind = 'lookup' | 'action'

/**
 * Which answer fields must repeat which request values. Each list names answer fields (dotted for a
 * nested one: `order.number`); the answer is bound when any one of them repeats the value exactly.
 * Only the values the call sent are checked (an optional field left out binds nothing).
 */
export interface AnswerBindingFields {
  /** Wire fields (dotted for a nested one) and the answer fields that repeat each. */
  readonly wire?: Readonly<Record<string, readonly string[]>>
  /** Path variables and the answer fields that repeat each. */
  readonly path?: Readonly<Record<string, readonly string[]>>
  /** The answer fields that repeat the call's idempotency key. */
  readonly idempotencyKey?: readonly string[]
  /** The service's rule the binding rests on, as its docs cite it (`Platform 27`): every refusal names it. */
  readonly rule: string
}

/** A row's binding: its kind and its fields (`bindAnswer`). */
export interface AnswerBinding extends AnswerBindingFields {
  readonly kind: AnswerBindingKind
}

/** Declares a row's answer binding, frozen through (the engine reads each binding once and keeps what it read). */
export function bindAnswer(kind: AnswerBindingKind, fields: AnswerBindingFields): AnswerBinding {
  const table = (named: Readonly<Record<string, readonly string[]>> | undefined) =>
    named && Object.freeze(Object.fromEntries(Object.entries(named).map(([k, v]) => [k, Object.freeze([...v])])))
  return Object.freeze({
    ...fields,
    kind,
    wire: table(fields.wire),
    path: table(fields.path),
    idempotencyKey: fields.idempotencyKey && Object.freeze([...fields.idempotencyKey]),
  })
}

/** What a row that reuses connections believes of an answer on a reused one (`Operation.reusesConnection`). */
export interface ReusedConnectionRule {
  /** Whether the answer shows the call applied (a captured payment for a capture). */
  readonly applied: (answer: unknown) => boolean
  /** The applied answer in words, for the message of one not believed: `result SUCCESS with status SETTLED`. */
  readonly shows: string
}

/** The 2xx answer value could not be used: the message says what is wrong with it. */
export type RejectAnswer = (problem: string) => never

/**
 * One operation of a service. `Ctx` is what the client hands its rows (the card signer and rules);
 * `S` the body's schema (`never`: no body); `Path` the path template and `Q` whether it takes a
 * query, kept as written so the resource method made from the row is typed by them.
 */
export interface Operation<
  Ctx = unknown,
  S extends z.core.$ZodType = z.core.$ZodType,
  Result = unknown,
  Path extends string = string,
  Q extends boolean = boolean,
> {
  /** `group.method`, as errors, hooks and logs name it. */
  readonly name: string
  readonly method: HttpMethod
  /** Which of the client's base URLs; default: the first one. */
  readonly base?: string
  /** Path below the base URL; `{name}` is filled from `input.path`, encoded, and checked. Or the client's configured path. */
  readonly path: Path | ((ctx: Ctx) => string)
  /** The body's schema, or one built from the client (its rules) on its first call, once per client. */
  readonly params?: S | ((ctx: Ctx) => S)
  /** Whether the operation takes an open query object. */
  readonly query?: Q
  /** Body encoding; default `json`. A `form` wire object must hold strings only. */
  readonly encoding?: 'json' | 'form'
  /**
   * The retry policy; a function of the client's context when the client chooses it (the card's
   * RECURRING_SALE retries inside the dedup window only when the merchant opts in).
   */
  readonly retry: RetryPolicy | ((ctx: Ctx) => RetryPolicy)
  readonly idempotency?: Idempotency
  /**
   * The business key and the safe lookup that settle an unknown outcome, and the key kinds
   * `reconcile` accepts for the operation; default: the idempotency key (any kind accepted).
   */
  readonly reconcile?: ReconcileRule
  /**
   * Which answer fields must repeat which request values (`bindAnswer`): the engine refuses a 2xx
   * answer that names another subject (or, for a lookup, none) as `unbound_response`, before the
   * row's decoder or the caller's schema reads it. Every caller of the row gets the check.
   */
  readonly answerBinding?: AnswerBinding
  /**
   * A money-moving call that may go on a kept-alive connection: its answer names its subject (its
   * `answerBinding` names every value that makes it this call's, the action included), and the
   * service's state refuses a repeat (a capture of a payment no longer pending). On a reused
   * connection only a 2xx that names every bound value and shows the call applied (`applied`) is
   * believed: a copy of that answer is still true, since no repeat can change it, while a copy of a
   * decline could hide a repeat that went through. Anything else is an unknown outcome, settled at
   * once by the row's `reconcile` lookup on a connection of its own (docs/reliability.md, "Keep-alive
   * where the answer is bound"). Needs `answerBinding` and `reconcile`.
   */
  readonly reusesConnection?: ReusedConnectionRule
  // Steps are methods: a row's own steps take its own params, and any row fits a table of rows.
  /** Refusals the schema would word badly (a shape meant for another endpoint). */
  precheck?(input: unknown): readonly ValidationIssue[]
  /** The wire object from the checked params (fixed fields, field order); default: the params. */
  toWire?(params: z.output<S>, ctx: Ctx): Record<string, unknown>
  /** The last step before encoding (the card signer adds `hash` from the very strings sent). */
  finalize?(wire: Record<string, unknown>, ctx: Ctx, operation: string): void
  /** Checks and types the answer value the service's reader produced; `reject` explains a bad one. */
  decode?(value: unknown, reject: RejectAnswer): Result
}

/**
 * Declares an operation row; its path template and `query` are kept as written, so the resource
 * method made from the row (`resource`) takes the right argument.
 */
export function defineOperation<
  Ctx = unknown,
  S extends z.core.$ZodType = never,
  Result = unknown,
  const Path extends string = string,
  const Q extends boolean = false,
>(row: Operation<Ctx, S, Result, Path, Q>): Operation<Ctx, S, Result, Path, Q> {
  if (row.reusesConnection && (row.answerBinding === undefined || row.reconcile === undefined)) {
    throw new TypeError(
      `${row.name}: reusesConnection needs an answerBinding (what makes an answer this call's) and a reconcile rule (how an answer not believed is settled)`,
    )
  }
  return Object.freeze(row)
}

/**
 * The decoder of an answer whose shape the service does not document: the parsed JSON, typed as the
 * open type `T` the package declares for it (a JSON value), so the type promises nothing unchecked.
 */
export function jsonAnswer<T>(value: unknown): T {
  return value as T
}
