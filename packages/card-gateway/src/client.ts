/** `CardGateway`: one client for Checkout (JSON) and S2S CARD (form), its signer and callback verifier. */

import {
  type AnswerSchema,
  type ApiPromise,
  type ClientOptions,
  type Intent,
  type IntentReconciled,
  type OperationOptions,
  type PaywireError,
  type ReconcileOptions,
  type RequestInput,
  RequestValidationError,
  type ResultOf,
  type Secret,
} from '@paywire/core'
import { checkBaseUrl, readCredentials, ServiceClient } from '@paywire/core/engine'
import pkg from '../package.json' with { type: 'json' }
import { AMOUNT_FORMS, type AmountForm } from './amount.js'
import { Callbacks } from './callbacks.js'
import { Checkout } from './checkout.js'
import { type CardGatewayOperation, ENDPOINTS, SIGNED_OPERATIONS } from './endpoints.js'
import { gatewayAnswers } from './errors.js'
import { type CardReconciled, reconcileCard } from './reconcile.js'
import { S2s } from './s2s.js'
import { DEFAULT_RULES, type GatewayContext, type RequestRules } from './schemas.js'
import {
  createSigner,
  type DigestName,
  explainSignature,
  type SignatureExplanation,
  type SignatureInput,
  type Signer,
  type UppercaseMode,
} from './signature.js'
import { checkSignatureCombination, checkSignatureOption } from './signature-options.js'
import { createRequestSigner, type PayerLookup, type SignatureOption } from './signature-presets.js'

/**
 * Defaults that rest on the platform's public documentation (the Platform rules); each can be
 * overridden for a gateway that differs. Omitted members keep the platform default.
 */
export interface CardGatewayPlatformDefaults {
  /** `interval_unit` values CREATE_SCHEDULE and UPDATE_SCHEDULE accept. Platform default: `['day', 'month']`. */
  readonly intervalUnits?: readonly string[]
  /** Length bounds of purchase `order.description`, in characters. Platform default: `{ min: 2, max: 1024 }`. */
  readonly orderDescriptionLength?: { readonly min: number; readonly max: number }
  /** Longest purchase `order.number`, in characters. Platform default: `255`. */
  readonly orderNumberMaxLength?: number
  /**
   * Uppercasing of the signature input. Platform default `'ascii'` (PHP `strtoupper`: only `a`–`z`);
   * `'unicode'` uppercases every letter (`é`→`É`, `ß`→`SS`), for gateways signing with `mb_strtoupper`.
   */
  readonly uppercase?: UppercaseMode
  /**
   * Uppercasing of the callback hash input, set apart from `uppercase` because platform clients are
   * seen signing requests with `mb_strtoupper` while callbacks use `strtoupper`. Default `'ascii'`.
   */
  readonly callbackUppercase?: UppercaseMode
  /**
   * How every amount (purchase `order.amount`, credit `order_amount`, RECURRING_SALE `order_amount`,
   * CAPTURE and CREDITVOID `amount`) is checked before sending. Default `'two-decimals'`: the
   * gateway's rule, two decimals in every currency (`10.50` KWD, `100.00` ISK). `'per-currency'`
   * opts in to the platform's forms (rule Platform 22: `10.500` KWD, `100` ISK, `1000.00` JPY); write
   * them with `formatAmount(minor, currency, { form: 'per-currency' })`.
   */
  readonly amountForm?: AmountForm
}

/** Options of `new CardGateway(...)`; every platform default (the Platform rules) can be overridden here. */
export interface CardGatewayOptions extends ClientOptions {
  /** Checkout base URL (`{base_url}` of the card gateway); https, or http on loopback for the simulator. */
  checkoutUrl: string
  /** S2S CARD base URL (`{s2s_url}`); requests go to `{s2sUrl}/post`. */
  s2sUrl: string
  /** Checkout `merchant_key` (sent in the body). */
  merchantKey: string | Secret
  /** S2S CARD `client_key` (sent in the body). */
  clientKey: string | Secret
  /** The merchant secret: never sent, only the last hash input (rule Authentication 2). */
  password: string | Secret
  /** Which environment the keys belong to; only sharpens messages (e.g. the 220002 key-mixing hint). */
  environment?: 'sandbox' | 'production'
  /**
   * Inner digest of the seed formula `sha1(inner(UPPER(...)))`: `md5` (default) or `sha256` (an
   * admin option, rule Platform 3). It applies wherever the seed formula signs: every operation on
   * the `seed` preset, Checkout on `card-md5-strrev`.
   */
  digest?: DigestName
  /**
   * How requests are signed and callbacks verified: a preset, or your own signer function.
   * `'seed'` (default): `sha1(md5(UPPER(inputs… + password)))` everywhere. `'card-md5-strrev'`: the
   * platform's S2S CARD scheme for brands that sign with plain MD5 over the reversed payer email,
   * the password, the trans_id and the reversed card digits (S2S actions and S2S callbacks; Checkout
   * keeps the seed formula); it needs `payerLookup`. A function gets the wire fields (or a
   * callback's fields) and the password and returns the hex hash, for brands no preset covers.
   */
  signature?: SignatureOption
  /**
   * The payer email and card digits (or token) of a payment, by its trans_id / order_id: required by
   * `signature: 'card-md5-strrev'`, which hashes them although S2S requests and callbacks never carry
   * them. Synchronous; `undefined` for an unknown payment (the request is not sent, the callback refused).
   */
  payerLookup?: PayerLookup
  /**
   * Per-operation hash input field lists (wire names, `order.number` for nested), password excluded.
   * `'s2s.createSchedule'` has no default and must be set before `s2s.createSchedule` sends: its
   * inputs are not published, and a guessed list would either fail ("Hash is not valid") or, if it
   * were the password alone, let anyone who sees one request sign any schedule. `[]` signs the
   * password alone, knowingly.
   */
  hashInputs?: Partial<Record<CardGatewayOperation, readonly string[]>>
  /** Callback hash input order; default `id, order_number, order_amount, order_currency, order_description`. */
  callbackFields?: readonly string[]
  /**
   * The passwords a callback may be signed with, for a password rotation: the new one first, the old
   * one(s) after, until no callback arrives signed with them (a verified event says
   * `passwordIndex` when a non-first one matched). Default `[password]`. Requests always sign with
   * `password` alone. A non-empty list of non-empty strings or `Secret`s, no two alike.
   */
  callbackPasswords?: readonly (string | Secret)[]
  /** Checkout paths (rules Platform 5, 7): purchase `/api/v1/session`, status `/api/v1/payment/status`. */
  paths?: { purchase?: string; status?: string }
  /**
   * Platform rule: redirect targets (`success_url`, `cancel_url`, `expiry_url`, `error_url`,
   * `term_url_3ds`) must be public HTTPS URLs, so loopback, private, link-local and unspecified
   * addresses and single-label or local-only names are refused before sending. `true` allows them
   * (still `https:` only) for sandboxes and staging hosts the payer's browser can reach privately.
   * Default `false`.
   */
  allowPrivateRedirectUrls?: boolean
  /** Overrides of the platform defaults (schedule units, purchase lengths, signature uppercasing). */
  platformDefaults?: CardGatewayPlatformDefaults
}

/** Raw escape hatch input: any path below one of the two base URLs (`base` is required: there are two). */
export interface CardGatewayRawRequest extends RequestInput<'checkout' | 's2s'> {
  /** Which base URL the path is under. */
  readonly base: 'checkout' | 's2s'
}

/**
 * `callbackPasswords`, checked like `password` (each non-empty, no control characters, no
 * surrounding whitespace) plus: a non-empty list, no two alike (a repeat is a paste mistake that
 * would hide a missing password). Errors name `callbackPasswords[i]` and never quote a value.
 */
function readCallbackPasswords(given: unknown): Secret[] {
  if (!Array.isArray(given)) invalid('callbackPasswords', 'must be a list of passwords (strings or Secrets)')
  if (given.length === 0) invalid('callbackPasswords', 'must list at least one password (omit it to use password)')
  const names = given.map((_, i) => `callbackPasswords[${i}]`)
  const read = readCredentials(
    'CardGateway',
    Object.fromEntries(names.map((name, i) => [name, given[i]])),
    Object.fromEntries(names.map((name) => [name, 'text' as const])),
  )
  const secrets = names.map((name) => read[name] as Secret)
  const first = new Map<string, number>()
  secrets.forEach((secret, i) => {
    const seen = first.get(secret.reveal())
    if (seen !== undefined) invalid(`callbackPasswords[${i}]`, `is the same password as callbackPasswords[${seen}]`)
    first.set(secret.reveal(), i)
  })
  return secrets
}

function invalid(path: string, message: string): never {
  throw new RequestValidationError('CardGateway', [{ path, message }], 'options')
}

function isCount(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min
}

/** The client's rules: the platform defaults with the caller's overrides, each checked. */
function resolveRules(allowPrivate: unknown, given: CardGatewayPlatformDefaults | undefined): RequestRules {
  if (allowPrivate !== undefined && typeof allowPrivate !== 'boolean') {
    invalid('allowPrivateRedirectUrls', 'must be true or false')
  }
  const overrides = given ?? {}
  const units = overrides.intervalUnits ?? DEFAULT_RULES.intervalUnits
  if (!Array.isArray(units) || units.length === 0 || !units.every((u) => typeof u === 'string' && u !== '')) {
    invalid('platformDefaults.intervalUnits', 'must be a non-empty list of non-empty strings')
  }
  const description = overrides.orderDescriptionLength ?? DEFAULT_RULES.orderDescriptionLength
  if (!isCount(description.min, 0) || !isCount(description.max, 1) || description.min > description.max) {
    invalid(
      'platformDefaults.orderDescriptionLength',
      'must be { min, max } with whole numbers 0 <= min <= max, max >= 1',
    )
  }
  const numberMax = overrides.orderNumberMaxLength ?? DEFAULT_RULES.orderNumberMaxLength
  if (!isCount(numberMax, 1)) invalid('platformDefaults.orderNumberMaxLength', 'must be a whole number >= 1')
  const amountForm = overrides.amountForm ?? DEFAULT_RULES.amountForm
  if (!AMOUNT_FORMS.includes(amountForm)) {
    invalid('platformDefaults.amountForm', 'must be "two-decimals" (the default) or "per-currency"')
  }
  return {
    allowPrivateRedirectUrls: allowPrivate === true,
    intervalUnits: Object.freeze([...units]),
    orderDescriptionLength: Object.freeze({ min: description.min, max: description.max }),
    orderNumberMaxLength: numberMax,
    amountForm,
  }
}

function checkUppercase(value: unknown, path = 'platformDefaults.uppercase'): UppercaseMode {
  if (value === undefined) return 'ascii'
  if (value === 'ascii' || value === 'unicode') return value
  return invalid(path, 'must be "ascii" or "unicode"')
}

/**
 * `hashInputs`: for signed operations only, each a list of wire field names (non-empty strings, `order.number`
 * for nested fields), copied so a later change to the caller's arrays cannot change what is signed.
 */
function checkHashInputs(given: unknown): Partial<Record<CardGatewayOperation, readonly string[]>> {
  if (given === undefined) return {}
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    return invalid('hashInputs', 'must be an object: operation name → list of wire field names')
  }
  const lists: Partial<Record<CardGatewayOperation, readonly string[]>> = {}
  for (const [operation, names] of Object.entries(given)) {
    const path = `hashInputs.${operation}`
    if (!Object.hasOwn(SIGNED_OPERATIONS, operation)) {
      invalid(path, `is not a signed operation; one of ${Object.keys(SIGNED_OPERATIONS).join(', ')}`)
    }
    if (!Array.isArray(names)) invalid(path, 'must be an array of wire field names')
    const list: string[] = []
    // By index, not by iteration helpers that skip holes: a hole is a missing name, refused like any other.
    for (let i = 0; i < names.length; i++) {
      const name: unknown = names[i]
      if (typeof name !== 'string' || name === '') {
        invalid(`${path}[${i}]`, 'must be a wire field name: a non-empty string (`order.number` for a nested field)')
      }
      list.push(name as string)
    }
    lists[operation as CardGatewayOperation] = Object.freeze(list)
  }
  return lists
}

function checkPath(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback
  if (!value.startsWith('/') || value.startsWith('//')) {
    invalid(name, 'must be a path starting with a single "/"')
  }
  return value
}

/**
 * The card gateway client; the rules it follows, and the IDs its docs cite (`rule Limits 1`), are at
 * https://github.com/paywire/paywire/blob/main/docs/card-gateway-rules.md. Credentials are kept as `Secret`s in private
 * fields: `inspect` and `JSON.stringify` show the base URLs only, and the password never leaves
 * the process (rule Authentication 2).
 */
export class CardGateway extends ServiceClient<GatewayContext> {
  /** Checkout: purchase, credit, status. */
  readonly checkout: Checkout
  /** S2S CARD: the nine actions and `captureIfPending`. */
  readonly s2s: S2s
  /** Callback verification over raw bodies. */
  readonly callbacks: Callbacks

  readonly #checkoutUrl: string
  readonly #s2sUrl: string
  readonly #password: Secret
  readonly #digest: DigestName
  readonly #uppercase: UppercaseMode
  /** The request signer, with this client's password, digest and uppercasing. */
  readonly #signer: Signer
  readonly #environment: string | undefined

  constructor(options: CardGatewayOptions) {
    // The keys travel in request bodies and the password only in the hash (rules Authentication 1, 2).
    const credentials = readCredentials('CardGateway', options, {
      merchantKey: 'text',
      clientKey: 'text',
      password: 'text',
    })
    const {
      checkoutUrl,
      s2sUrl,
      merchantKey: _merchantKey,
      clientKey: _clientKey,
      password: _password,
      environment,
      digest,
      signature: givenSignature,
      payerLookup,
      hashInputs,
      callbackFields,
      callbackPasswords: givenCallbackPasswords,
      paths,
      allowPrivateRedirectUrls,
      platformDefaults,
      ...core
    } = options
    const checkoutBase = checkBaseUrl('checkoutUrl', checkoutUrl, 'CardGateway')
    const s2sBase = checkBaseUrl('s2sUrl', s2sUrl, 'CardGateway')
    if (digest !== undefined && digest !== 'md5' && digest !== 'sha256') {
      invalid('digest', 'must be "md5" or "sha256"')
    }
    const rules = resolveRules(allowPrivateRedirectUrls, platformDefaults)
    const uppercase = checkUppercase(platformDefaults?.uppercase)
    const signer = createSigner(credentials.password, digest ?? 'md5', uppercase)
    const callbackPasswords =
      givenCallbackPasswords === undefined ? [credentials.password] : readCallbackPasswords(givenCallbackPasswords)
    const overrides = checkHashInputs(hashInputs)
    const signature = checkSignatureOption(givenSignature)
    checkSignatureCombination(
      signature,
      (operation) => SIGNED_OPERATIONS[operation as CardGatewayOperation]?.action,
      digest,
      overrides,
      payerLookup,
    )
    const context: GatewayContext = {
      paths: {
        purchase: checkPath('paths.purchase', paths?.purchase, '/api/v1/session'),
        status: checkPath('paths.status', paths?.status, '/api/v1/payment/status'),
      },
      rules,
      merchantKey: () => credentials.merchantKey.reveal(),
      clientKey: () => credentials.clientKey.reveal(),
      signRequest: createRequestSigner({
        signature,
        password: credentials.password,
        seed: signer,
        uppercase,
        hashInputs: (operation) => overrides[operation as CardGatewayOperation],
        payerLookup,
      }),
    }
    super({
      client: 'CardGateway',
      packageName: 'card-gateway',
      packageVersion: pkg.version,
      options: core,
      baseUrls: { checkout: checkoutBase, s2s: s2sBase },
      context,
      answers: gatewayAnswers(environment),
      endpoints: ENDPOINTS,
    })
    this.#checkoutUrl = checkoutBase
    this.#s2sUrl = s2sBase
    this.#password = credentials.password
    this.#digest = digest ?? 'md5'
    this.#uppercase = uppercase
    this.#signer = signer
    this.#environment = environment
    this.checkout = new Checkout(this.engine)
    this.s2s = new S2s(this.engine)
    this.callbacks = new Callbacks(
      callbackPasswords,
      {
        digest: this.#digest,
        uppercase: checkUppercase(platformDefaults?.callbackUppercase, 'platformDefaults.callbackUppercase'),
        ...(callbackFields ? { fields: callbackFields } : {}),
        signature,
        ...(payerLookup ? { payerLookup } : {}),
      },
      core.logger,
      // The inbox confirms strrev S2S callbacks through this client's own lookup (its transport, signer, retries).
      (transId) => this.s2s.getTransStatus({ trans_id: transId }),
    )
  }

  /**
   * The seed-formula hash of `values` (wire strings in order) with the password appended, with this
   * client's digest and uppercasing: for raw requests.
   */
  sign(values: readonly string[]): string {
    return this.#signer(values)
  }

  /** Each step of the signature of `inputs` with this client's password (masked) and digest. */
  explainSignature(inputs: readonly SignatureInput[] | readonly string[]): SignatureExplanation {
    return explainSignature(inputs, this.#password, this.#digest, { uppercase: this.#uppercase })
  }

  /**
   * The raw escape hatch: any path under `checkoutUrl` or `s2sUrl` (`base` says which), same
   * transport, retries and `CardGatewayError`. Add keys and `hash` yourself (see `sign`). Resolves
   * with the JSON the gateway answers; pass `schema` to check and type it. Default retry: `safe` for
   * GET, `unsent-only` otherwise.
   */
  override request<S extends AnswerSchema | undefined = undefined>(
    input: CardGatewayRawRequest,
    options?: OperationOptions<S>,
  ): ApiPromise<ResultOf<S, unknown>> {
    return super.request(input, options)
  }

  /**
   * Settles an unknown outcome (an error with `outcomeUnknown`, or an intent from `pendingIntents()`)
   * by the operation's safe lookup: CAPTURE, VOID, CREDITVOID by GET_TRANS_STATUS; purchase and credit
   * by the status lookup of their order_id; RECURRING_SALE by GET_TRANS_STATUS_BY_ORDER (rule States 3).
   * Lookups only: it never sends the call again. `still_unknown` says what to try next. A lookup that
   * finds nothing proves the call did not act only `settleAfterMs` (default 2 minutes) after it.
   */
  async reconcile(subject: PaywireError | Intent, options?: ReconcileOptions): Promise<CardReconciled> {
    return reconcileCard(this.reconcileSubject(subject), this.engine, options)
  }

  /**
   * Reconciles every open intent of the `journal` (after a crash or a restart), oldest first, and
   * closes those now settled; `still_unknown` ones stay open. Lookups only.
   */
  override reconcileAll(options?: ReconcileOptions): Promise<IntentReconciled[]> {
    return this.reconcileEach((intent) => this.reconcile(intent, options))
  }

  /** The Checkout base URL (no trailing slash). */
  get checkoutUrl(): string {
    return this.#checkoutUrl
  }

  /** The S2S CARD base URL (no trailing slash); actions go to `{s2sUrl}/post`. */
  get s2sUrl(): string {
    return this.#s2sUrl
  }

  /** The base URLs and the environment: never a credential. */
  toJSON(): Record<string, unknown> {
    return { checkoutUrl: this.#checkoutUrl, s2sUrl: this.#s2sUrl, environment: this.#environment }
  }
}
