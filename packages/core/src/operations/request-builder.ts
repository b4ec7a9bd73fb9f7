/**
 * The engine's request builder: a row and the caller's checked input become the request for the
 * wire (URL with path and query, credentials and key headers, encoded body after the row's steps,
 * retry policy, reconciliation key). Every check runs first (call-input.ts): a refusal sends nothing.
 */

import type { z } from 'zod'
import { nodeCrypto } from '../builtins.js'
import { type Reconciliation, RequestValidationError } from '../errors/errors.js'
import type { HttpRequest } from '../transport/request.js'
import { expandPath } from '../transport/url.js'
import { BoundRequest } from './answer-binding.js'
import {
  NO_PATH,
  type OperationInput,
  type OperationOptions,
  optionIssues,
  pathValues,
  queryIssues,
  type RequestInput,
  refuseKeylessResend,
  withBodyKey,
} from './call-input.js'
import { formBody, jsonBody, type Query, withQuery } from './encode.js'
import { type Idempotency, type Operation, retryPolicyOf, type SentRequest } from './operation.js'
import { buildRawRequest } from './raw.js'
import type { ResponseSchema } from './response-schema.js'
import { keyed } from './retry.js'
import { checkParams } from './validate.js'

/** Where a client's requests go and what each carries: what the builder takes from the client. */
export interface RequestTarget<Ctx> {
  /** Base URLs by name, the first is the default (`{ default: baseUrl }`, or the card's two). */
  readonly baseUrls: Readonly<Record<string, string>>
  /** What rows' steps receive. */
  readonly context: Ctx
  /** Credential headers of every call, read per call from the client's secrets. */
  readonly authHeaders?: () => Record<string, string>
  /** The header `request()` sends an `idempotencyKey` option in (the service's idempotency header), if any. */
  readonly requestIdempotencyHeader?: string
}

/** Builds the requests of one client; each row's schema under the client's rules is built once, on first use. */
export class RequestBuilder<Ctx> {
  readonly #target: RequestTarget<Ctx>
  readonly #defaultBase: string
  /** Each row's schema under this client's rules, built once. */
  readonly #schemas = new WeakMap<object, z.core.$ZodType>()
  /** The names of the client's credential headers, once a call has read them. */
  #credentialHeaders: readonly string[] | undefined

  constructor(target: RequestTarget<Ctx>) {
    this.#target = target
    this.#defaultBase = Object.keys(target.baseUrls)[0] ?? 'default'
  }

  /**
   * The request for `row` from the caller's `input`, checked: every problem is one issue of the
   * `RequestValidationError` thrown, before anything is sent. `params` are the checked params (for
   * the journal); `sent` what the request carries (for the answer binding).
   */
  build<Result>(
    row: Operation<Ctx, z.core.$ZodType, Result>,
    input: OperationInput,
    options: OperationOptions<ResponseSchema | undefined>,
    ownConnection: boolean,
  ): { request: HttpRequest; params: unknown; sent: SentRequest; bound: BoundRequest | undefined } {
    const { context: ctx } = this.#target
    const issues = optionIssues(options, row.idempotency !== undefined)
    const template = typeof row.path === 'string' ? row.path : row.path(ctx)
    const path = pathValues(template, input.path, issues)
    if (row.query) issues.push(...queryIssues(input.query))

    const idempotency = row.idempotency
    let key = options.idempotencyKey
    let params: unknown
    if (row.params) {
      let body = input.body
      if (idempotency && 'bodyField' in idempotency) {
        ;({ body, key } = withBodyKey(body, idempotency, key, issues))
      }
      issues.push(...(row.precheck?.(body) ?? []))
      if (issues.length === 0) {
        const checked = checkParams(this.#schemaOf(row), body)
        if (checked.ok) params = checked.data
        else issues.push(...checked.issues)
      }
    }
    if (issues.length > 0) throw new RequestValidationError(row.name, issues)
    if (key === undefined && idempotency?.generate) key = nodeCrypto().randomUUID()

    let wire: Record<string, unknown> | undefined
    if (row.params) {
      wire = row.toWire ? row.toWire(params, ctx) : (params as Record<string, unknown>)
      row.finalize?.(wire, ctx, row.name)
    }
    if (idempotency && 'bodyField' in idempotency) {
      // The key is what the service will read: the field as sent, after the schema and the wire steps.
      const sentKey = wire?.[idempotency.bodyField]
      key = typeof sentKey === 'string' ? sentKey : undefined
    }
    refuseKeylessResend(row.name, options, key)
    // A copy: the credentials object may be shared or frozen, and the idempotency key is per call.
    const auth = this.#target.authHeaders?.()
    const headers: Record<string, string> = { ...auth }
    const keyHeader = idempotency && 'header' in idempotency ? idempotency.header : undefined
    if (keyHeader && key !== undefined) headers[keyHeader] = key
    const base = this.#baseUrl(row.base, row.name)
    const url = base + (path === NO_PATH ? template : expandPath(template, path, row.name))
    const sent: SentRequest = { wire, path, idempotencyKey: key }
    const retry = options.retryWithSameKey === true ? keyed : retryPolicyOf(row, ctx)
    const binding = row.answerBinding
    const bound = binding && new BoundRequest(binding, sent)
    // Which answers on a reused connection are believed: a lookup's and a bound money-moving call's.
    const rule = ownConnection ? undefined : row.reusesConnection
    // On a reused socket where an earlier request had this one's subject, a bound answer may be that
    // request's: then only one showing the call applied is believed (its copy stays true).
    const answerCheck =
      bound && (rule || retry.kind === 'safe')
        ? (status: number, json: unknown, repeated: boolean) =>
            bound.unboundOnReuse(status, json) ??
            (rule && repeated && !rule.applied(json)
              ? `an earlier request on this connection had the same subject, and it does not show ${rule.shows}, the only answer whose copy a repeat cannot make untrue`
              : undefined)
        : undefined
    const request: HttpRequest = {
      operation: row.name,
      method: row.method,
      url: row.query ? withQuery(url, input.query as Query | undefined) : url,
      base,
      shownUrl: base + template,
      headers,
      body: wire && (row.encoding === 'form' ? formBody(wire as Record<string, string>) : jsonBody(wire)),
      retry,
      reconciliation: row.reconcile ? row.reconcile.of(sent) : keyReconciliation(idempotency, key),
      idempotencyKey: key,
      credentialHeaders: auth && this.#credentialNames(auth),
      managedHeaders: keyHeader ? [keyHeader] : undefined,
      ownConnection: ownConnection || undefined,
      reusesConnection: rule ? true : undefined,
      answerCheck,
      subject: rule && bound ? bound.subject(row.name) : undefined,
    }
    return { request, params, sent, bound }
  }

  /** The raw escape hatch's request: any method and path below a base URL, with the credentials and the client's key header. */
  buildRaw(input: RequestInput, options: OperationOptions<ResponseSchema | undefined>): HttpRequest {
    const keyHeader = this.#target.requestIdempotencyHeader
    const issues = optionIssues(options, keyHeader !== undefined)
    if (issues.length > 0) throw new RequestValidationError('request', issues)
    const { base, ...rest } = input ?? ({} as RequestInput)
    const key = options.idempotencyKey
    refuseKeylessResend('request', options, key)
    const auth = this.#target.authHeaders?.()
    const headers: Record<string, string> = { ...auth }
    if (keyHeader && key !== undefined) headers[keyHeader] = key
    const managed = keyHeader ? [keyHeader] : []
    const baseUrl = this.#baseUrl(base, 'request')
    const request = buildRawRequest('request', baseUrl, rest, headers, managed)
    return {
      ...request,
      base: baseUrl,
      // The caller wrote this path: it is shown as written, without its query.
      shownUrl: request.url.split('?')[0],
      retry: options.retryWithSameKey === true ? keyed : request.retry,
      reconciliation: keyReconciliation(keyHeader ? { header: keyHeader } : undefined, key),
      idempotencyKey: key,
      credentialHeaders: auth && this.#credentialNames(auth),
      // Nothing binds a raw answer to its request: a kept-alive connection's stale answer could be
      // read as its own, so it always goes on a connection of its own.
      ownConnection: true,
    }
  }

  /**
   * The header names the client's credentials travel in: the service's own credential headers,
   * redacted wherever headers are shown. Read from the first call's credentials (the names of a
   * client's credentials do not change; their values are read per call).
   */
  #credentialNames(auth: Readonly<Record<string, string>>): readonly string[] {
    this.#credentialHeaders ??= Object.freeze(Object.keys(auth))
    return this.#credentialHeaders
  }

  #baseUrl(base: string | undefined, operation: string): string {
    const name = base ?? this.#defaultBase
    // Own members only: `constructor` or `__proto__` is no base URL.
    const url = Object.hasOwn(this.#target.baseUrls, name) ? this.#target.baseUrls[name] : undefined
    if (typeof url === 'string') return url
    const names = Object.keys(this.#target.baseUrls).map((name) => JSON.stringify(name))
    throw new RequestValidationError(operation, [{ path: 'base', message: `must be ${names.join(' or ')}` }])
  }

  #schemaOf(row: Operation<Ctx, z.core.$ZodType, unknown>): z.core.$ZodType {
    const given = row.params as z.core.$ZodType | ((ctx: Ctx) => z.core.$ZodType)
    if (typeof given !== 'function') return given
    let schema = this.#schemas.get(row)
    if (!schema) {
      schema = given(this.#target.context)
      this.#schemas.set(row, schema)
    }
    return schema
  }
}

/**
 * A keyed call without a lookup of its own is looked up by its key with the service. Sending it
 * again with the same key is not a lookup: it pays twice wherever the service does not deduplicate.
 */
function keyReconciliation(idempotency: Idempotency | undefined, key: string | undefined): Reconciliation | undefined {
  if (!idempotency || key === undefined) return undefined
  const name = 'header' in idempotency ? idempotency.header : idempotency.bodyField
  return {
    key: name,
    value: key,
    lookup: `a lookup with the service of the call sent with ${name} ${JSON.stringify(key)}`,
  }
}
