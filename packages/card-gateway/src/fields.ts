/** Shared field rules, what the operation rows see of the client, and the value types of answers. */

import {
  type AnswerBinding,
  bindAnswer,
  type ReconcileRule,
  type ReusedConnectionRule,
  reconcileRule,
} from '@paywire/core/engine'
import * as z from '@paywire/core/zod'
import { type AmountForm, amountProblem, CURRENCY_PATTERN, CURRENCY_RULE } from './amount.js'
import { wireField } from './wire.js'

// Field schemas are functions: a params schema is built on a client's first call of its row, never
// at import (a cold start pays for no schema it does not use).

/**
 * An amount as a string, so body and hash stay byte-identical; its form per currency is checked
 * with the object holding the currency (`withAmountRule`).
 */
export function amountText() {
  return z.string({
    error: (issue) =>
      typeof issue.input === 'number'
        ? 'must be a string (e.g. "10.00"), not a number: the exact string is sent and signed (formatAmount writes it)'
        : issue.input === undefined
          ? 'is required'
          : 'must be a string such as "10.00"',
  })
}

/** A currency code: three capital letters (rule Platform 22). */
export function currencyCode() {
  return z.string().check(z.regex(CURRENCY_PATTERN, CURRENCY_RULE))
}

/**
 * Adds the amount rule to an object schema: `amountField` must be a wire amount in the client's
 * `form` (two decimals by default, rule Interfaces; per currency by opt-in, rule Platform 22) of
 * the currency in `currencyField`, or of any currency when the request names none.
 */
export function withAmountRule<T extends z.ZodMiniObject>(
  schema: T,
  form: AmountForm,
  amountField: string,
  currencyField?: string,
): T {
  return schema.check(
    z.superRefine((value: Record<string, unknown>, ctx) => {
      const amount = value[amountField]
      if (typeof amount !== 'string') return
      const currency = currencyField === undefined ? undefined : value[currencyField]
      const problem = amountProblem(amount, typeof currency === 'string' ? currency : undefined, form)
      if (problem) ctx.addIssue({ code: 'custom', path: [amountField], message: problem })
    }),
  ) as T
}

/** One member of `T` given (never `undefined`), every other member absent. */
export type ExactlyOne<T> = {
  [K in keyof T]-?: { [P in keyof Pick<T, K>]-?: Exclude<T[P], undefined> } & {
    [P in Exclude<keyof T, K>]?: never
  }
}[keyof T]

/**
 * An object of optional members of which exactly one must be given: checked at run time with
 * `message`, and typed so that a call naming both or neither does not compile.
 */
export function exactlyOne<S extends z.ZodMiniObject>(
  schema: S,
  message: string,
): z.ZodMiniType<z.output<S>, ExactlyOne<z.input<S>>> {
  const given = (value: Record<string, unknown>) => Object.values(value).filter((v) => v !== undefined).length
  // The refinement is what makes the narrower input type true; zod cannot infer it from a refinement.
  return schema.check(
    z.refine((value: Record<string, unknown>) => given(value) === 1, { message }),
  ) as unknown as z.ZodMiniType<z.output<S>, ExactlyOne<z.input<S>>>
}

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** schedule_id: a UUID, checked before sending (rule S2S 2). */
export function uuid() {
  return z.string().check(z.regex(UUID_PATTERN, 'must be a UUID, e.g. "9b0c6e1a-3f7d-4c2e-8a51-7d2f0e4b9c13"'))
}

/** Text that must not be empty. */
export function nonEmpty() {
  return z.string().check(z.minLength(1, 'must not be empty'))
}

/**
 * Rules a client can change, carried to every schema it builds: the redirect-target policy and the
 * platform defaults (documented on `CardGatewayOptions`).
 */
export interface RequestRules {
  readonly allowPrivateRedirectUrls: boolean
  readonly intervalUnits: readonly string[]
  readonly orderDescriptionLength: { readonly min: number; readonly max: number }
  readonly orderNumberMaxLength: number
  /** How amounts are written and checked: two decimals (default), or per currency by opt-in. */
  readonly amountForm: AmountForm
  /** Whether RECURRING_SALE is retried inside the 15 s dedup window (opt-in) or only when provably not sent. */
  readonly recurringSaleDedup: boolean
}

/** The platform defaults: `interval_unit` day|month, description 2–1024 characters, number at most 255. */
export const DEFAULT_RULES: RequestRules = Object.freeze({
  allowPrivateRedirectUrls: false,
  intervalUnits: Object.freeze(['day', 'month']),
  orderDescriptionLength: Object.freeze({ min: 2, max: 1024 }),
  orderNumberMaxLength: 255,
  amountForm: 'two-decimals',
  recurringSaleDedup: false,
})

const REDIRECT_RULE = 'platform rule: redirect targets must be public HTTPS URLs answering 2xx quickly'

/**
 * A redirect target (term_url_3ds, success_url, cancel_url, expiry_url, error_url): an absolute
 * https: URL whose host the payer's browser can reach on the public internet. Loopback, private,
 * link-local and unspecified addresses and single-label or local-only names are refused unless
 * `allowPrivate` (the client option `allowPrivateRedirectUrls`, for sandboxes and staging).
 */
export function redirectUrl(allowPrivate: boolean) {
  // A shop sends the same few redirect URLs on every call: each verdict is kept (by the exact string,
  // at most ACCEPTED_URLS of them), so the URL is parsed once rather than on every payment.
  const accepted = new Set<string>()
  return z.string().check(
    z.superRefine((value, ctx) => {
      if (accepted.has(value)) return
      const problem = redirectProblem(value, allowPrivate)
      if (problem !== undefined) {
        ctx.addIssue({ code: 'custom', message: problem })
        return
      }
      if (accepted.size >= ACCEPTED_URLS) accepted.clear()
      accepted.add(value)
    }),
  )
}

/** How many accepted redirect URLs one client remembers. */
const ACCEPTED_URLS = 256

/** What is wrong with `value` as a redirect target, or `undefined` when it is fine. */
export function redirectProblem(value: string, allowPrivate: boolean): string | undefined {
  let url: URL
  try {
    url = new URL(value) // parsed once: the protocol and the normalised host come from this parse
  } catch {
    return `must be an absolute https: URL (${REDIRECT_RULE})`
  }
  // Local development: the shop and the payer's browser on one machine, opted into like any private host.
  if (allowPrivate && url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined
  if (url.protocol !== 'https:') return `must be an https: URL, not ${url.protocol} (${REDIRECT_RULE})`
  if (allowPrivate) return undefined
  const why = nonPublicHost(url.hostname)
  if (why === undefined) return undefined
  return (
    `must be a public HTTPS URL: ${url.hostname} is ${why}, which the payer's browser cannot reach on your ` +
    `site (${REDIRECT_RULE}); for a sandbox or staging host set the client option allowPrivateRedirectUrls: true`
  )
}

/**
 * Whether `hostname` (as WHATWG `URL` normalises it) is this machine: `localhost` and its
 * subdomains, 127.0.0.0/8, `[::1]`. A return URL there reaches the merchant's own development server.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host)
}

/**
 * Why `hostname` (as WHATWG `URL` normalises it: IPv4 in dotted decimal, IPv6 in brackets,
 * lowercase) is not publicly reachable, or `undefined` when it may be.
 */
export function nonPublicHost(hostname: string): string | undefined {
  if (hostname.startsWith('[')) return nonPublicIpv6(hostname.slice(1, -1))
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(hostname)
  if (v4) return nonPublicIpv4(v4.slice(1).reduce((n, part) => n * 256 + Number(part), 0))
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname
  if (name === 'localhost' || name.endsWith('.localhost')) return 'a loopback name'
  if (!name.includes('.')) return 'a single-label name (resolved only inside a private network)'
  // Special-use names that never resolve publicly: mDNS (.local), private use (.internal, .home.arpa).
  if (/\.(local|internal|home\.arpa)$/.test(name)) return 'a local network name'
  return undefined
}

/** Tests `address` (a 32-bit number) against `prefix/bits`. */
function inV4(address: number, prefix: string, bits: number): boolean {
  const base = prefix.split('.').reduce((n, part) => n * 256 + Number(part), 0)
  const size = 2 ** (32 - bits)
  return Math.floor(address / size) === Math.floor(base / size)
}

function nonPublicIpv4(address: number): string | undefined {
  if (inV4(address, '0.0.0.0', 8)) return 'an unspecified address'
  if (inV4(address, '127.0.0.0', 8)) return 'a loopback address'
  if (inV4(address, '10.0.0.0', 8) || inV4(address, '172.16.0.0', 12) || inV4(address, '192.168.0.0', 16)) {
    return 'a private address'
  }
  if (inV4(address, '100.64.0.0', 10)) return 'a private (carrier-grade NAT) address'
  if (inV4(address, '169.254.0.0', 16)) return 'a link-local address'
  if (inV4(address, '224.0.0.0', 3)) return 'a multicast or reserved address' // 224/4 and 240/4
  return undefined
}

/**
 * Classifies an IPv6 address as WHATWG `URL` writes it (hex groups, `::` compressed, an embedded
 * dotted quad already turned into two groups). An IPv4 address carried inside IPv6 (compatible,
 * mapped, translated, NAT64, 6to4, Teredo) reaches that IPv4 host, so it is judged as that host.
 */
function nonPublicIpv6(text: string): string | undefined {
  const halves = text.split('::')
  const head = halves[0] ? halves[0].split(':') : []
  const tail = halves.length > 1 && halves[1] ? halves[1].split(':') : []
  const fill = halves.length > 1 ? 8 - head.length - tail.length : 0
  const g = [...head, ...Array<string>(fill).fill('0'), ...tail].map((group) => Number.parseInt(group, 16))
  if (g.length !== 8 || g.some((group) => !(group >= 0 && group <= 0xffff))) return 'not a plain IPv6 address'
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number]
  const zeroTo = (end: number) => g.slice(0, end).every((group) => group === 0)
  const v4 = (high: number, low: number) => high * 65536 + low
  if (zeroTo(8)) return 'an unspecified address'
  if (zeroTo(7) && g7 === 1) return 'a loopback address'
  if (zeroTo(6)) return nonPublicIpv4(v4(g6, g7)) // IPv4-compatible ::a.b.c.d
  if (zeroTo(5) && g5 === 0xffff) return nonPublicIpv4(v4(g6, g7)) // IPv4-mapped ::ffff:a.b.c.d
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return nonPublicIpv4(v4(g6, g7)) // IPv4-translated
  if (g0 === 0x64 && g1 === 0xff9b) {
    // NAT64: the well-known prefix 64:ff9b::/96 carries the IPv4 host; 64:ff9b:1::/48 is local use.
    if (g2 === 1) return 'a private (local-use NAT64) address'
    if (g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return nonPublicIpv4(v4(g6, g7))
  }
  if (g0 === 0x2002) return nonPublicIpv4(v4(g1, g2)) // 6to4: 2002:aabb:ccdd::/48
  if (g0 === 0x2001 && g1 === 0) return nonPublicIpv4(v4(g6 ^ 0xffff, g7 ^ 0xffff)) // Teredo: the client, inverted
  if (g0 === 0x2001 && g1 === 0xdb8) return 'a documentation address (never routed)'
  if ((g0 & 0xfe00) === 0xfc00) return 'a private (unique local) address'
  if ((g0 & 0xffc0) === 0xfe80) return 'a link-local address'
  if ((g0 & 0xffc0) === 0xfec0) return 'a private (site-local) address'
  if ((g0 & 0xff00) === 0xff00) return 'a multicast address'
  return undefined
}

/** A count sent as a form string: a positive integer, given as a number or a digit string. */
export function positiveInt() {
  return z.union([
    z.number().check(z.int(), z.positive()),
    z.string().check(z.regex(/^[1-9]\d*$/, 'must be a positive integer')),
  ])
}

/** S2S `result` values (rule Platform 9); unknown values still parse. */
export type S2sResultValue = 'SUCCESS' | 'DECLINED' | 'REDIRECT' | 'ACCEPTED' | 'ERROR' | 'UNDEFINED' | (string & {})

/** S2S `status` values (rule Platform 9); unknown values still parse. */
export type S2sStatus =
  | '3DS'
  | 'REDIRECT'
  | 'PENDING'
  | 'PREPARE'
  | 'SETTLED'
  | 'REVERSAL'
  | 'REFUND'
  | 'VOID'
  | 'CHARGEBACK'
  | 'DECLINED'
  | (string & {})

/** Checkout payment `status` values, lowercase (rule Platform 7); unknown values still parse. */
export type CheckoutPaymentStatus =
  | 'prepare'
  | 'settled'
  | 'pending'
  | '3ds'
  | 'redirect'
  | 'decline'
  | 'refund'
  | 'reversal'
  | 'void'
  | 'chargeback'
  | (string & {})

/** Reads a JSON object answer; `undefined` when the body is not one. */
export function asObject(json: unknown): Record<string, unknown> | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined
  return json as Record<string, unknown>
}

/** What the card rows see of their client: keys, signer, rules and configured paths (internal). */
export interface GatewayContext {
  readonly paths: { readonly purchase: string; readonly status: string }
  /** The client's redirect-target policy and platform defaults, for the schemas it builds. */
  readonly rules: RequestRules
  merchantKey(): string
  clientKey(): string
  /**
   * The `hash` of one request, by the client's signature (preset or signer function), from its wire
   * fields; `published` are the row's hash inputs for the seed formula (`null`: not published).
   */
  signRequest(operation: string, wire: Readonly<Record<string, unknown>>, published: readonly string[] | null): string
}

/**
 * The reconcile rule of a call keyed by one of its wire fields (`order.number` reads the nested
 * purchase order): its key kind `key`, and the key and safe lookup that settle an unknown outcome.
 */
export function reconcileBy(field: string, key: string, lookup: (value: string) => string): ReconcileRule {
  return reconcileRule([key], ({ wire }) => {
    const value = wire && wireField(wire, field)
    return value ? { key, value, lookup: lookup(value) } : undefined
  })
}

/**
 * A lookup's answer binding (rule Platform 27): each wire field sent must be repeated exactly by
 * one of its answer fields, and an answer that names none of them confirms nothing.
 */
export function lookupAnswerNames(fields: Readonly<Record<string, readonly string[]>>): AnswerBinding {
  return bindAnswer('lookup', { wire: fields, rule: 'Platform 27' })
}

/**
 * A money-moving call's answer binding (rule Platform 27): an answer naming `field` must name the
 * value sent in it. One naming none is taken as before: the gateway does not publish its success
 * bodies (Platform 10 lists fields "commonly present"), so their absence proves nothing either way.
 */
export function actionAnswerNames(field: string): AnswerBinding {
  return bindAnswer('action', { wire: { [field]: [field] }, rule: 'Platform 27' })
}

/**
 * The binding of an action that may be answered on a kept-alive connection (CAPTURE, VOID): its
 * answer repeats the `trans_id` sent and the `action` (both among the answer fields the platform
 * shows, rule Platform 10). An answer that names another action or transaction is refused as
 * `unbound_response`; on a reused connection, one that leaves either out is not believed at all.
 */
export function keptAliveAnswerNames(): AnswerBinding {
  return bindAnswer('action', { wire: { trans_id: ['trans_id'], action: ['action'] }, rule: 'Platform 27' })
}

/**
 * What a kept-alive action believes on a reused connection (core's `Operation.reusesConnection`): an
 * answer that shows it applied, `result: SUCCESS` with the payment in `status` (SETTLED after a
 * capture, VOID after a void: rules States 1 and 2). A copy of that stays true, as the state refuses
 * a repeat; a copy of a DECLINED could hide a repeat that went through.
 */
export function appliedWhenStatus(status: string): ReusedConnectionRule {
  const applied = (answer: unknown) => {
    if (typeof answer !== 'object' || answer === null) return false
    const { result, status: shown } = answer as { result?: unknown; status?: unknown }
    return result === 'SUCCESS' && typeof shown === 'string' && shown.toUpperCase() === status
  }
  return Object.freeze({ applied, shows: `result SUCCESS with status ${status}` })
}
