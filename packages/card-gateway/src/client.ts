/** `CardGateway`: one client for Checkout (JSON) and S2S CARD (form), its signer and callback verifier. */

import { inspect } from 'node:util'
import {
  type ApiPromise,
  buildRawRequest,
  type CallOptions,
  type ClientOptions,
  checkBaseUrl,
  HttpClient,
  type RawRequestInput,
  RequestValidationError,
  Secret,
} from '@paywire/core'
import pkg from '../package.json' with { type: 'json' }
import { Callbacks } from './callbacks.js'
import { Checkout } from './checkout.js'
import { type CardGatewayOperation, type GatewayContext, gatewayHandler } from './context.js'
import { S2s } from './s2s.js'
import { type DigestName, explainSignature, type SignatureExplanation, type SignatureInput, sign } from './signature.js'

/** Options of `new CardGateway(...)`; every platform default (PLATFORM_NOTES) can be overridden here. */
export interface CardGatewayOptions extends ClientOptions {
  /** Checkout base URL (`{base_url}` in the spec); https, or http on loopback for the simulator. */
  checkoutUrl: string
  /** S2S CARD base URL (`{s2s_url}`); requests go to `{s2sUrl}/post`. */
  s2sUrl: string
  /** Checkout `merchant_key` (sent in the body). */
  merchantKey: string
  /** S2S CARD `client_key` (sent in the body). */
  clientKey: string
  /** The merchant secret: never sent, only the last hash input (spec Authentication 2). */
  password: string
  /** Which environment the keys belong to; only sharpens messages (e.g. the 220002 key-mixing hint). */
  environment?: 'sandbox' | 'production'
  /** Inner digest of the signature: `md5` (default) or `sha256` (an admin option, PLATFORM_NOTES). */
  digest?: DigestName
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
  /** Checkout paths (PLATFORM_NOTES defaults): purchase `/api/v1/session`, status `/api/v1/payment/status`. */
  paths?: { purchase?: string; status?: string }
}

/** Raw escape hatch input: any path below one of the two base URLs, same pipeline and error class. */
export interface CardGatewayRawRequest extends RawRequestInput {
  /** Which base URL the path is under. */
  readonly base: 'checkout' | 's2s'
}

function requiredString(name: string, value: unknown): string {
  if (typeof value === 'string' && value !== '') return value
  throw new RequestValidationError('client', [{ path: name, message: 'must be a non-empty string' }])
}

function checkPath(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback
  if (!value.startsWith('/') || value.startsWith('//')) {
    throw new RequestValidationError('client', [{ path: name, message: 'must be a path starting with a single "/"' }])
  }
  return value
}

/**
 * The card gateway client (ARCHITECTURE section 3). Credentials are kept as `Secret`s in private
 * fields: `inspect` and `JSON.stringify` show the base URLs only, and the password never leaves
 * the process (spec Authentication 2).
 */
export class CardGateway {
  /** Checkout: purchase, credit, status. */
  readonly checkout: Checkout
  /** S2S CARD: the nine actions and `captureIfPending`. */
  readonly s2s: S2s
  /** Callback verification over raw bodies. */
  readonly callbacks: Callbacks

  readonly #http: HttpClient
  readonly #checkoutUrl: string
  readonly #s2sUrl: string
  readonly #merchantKey: Secret
  readonly #clientKey: Secret
  readonly #password: Secret
  readonly #digest: DigestName
  readonly #environment: string | undefined
  readonly #ctx: GatewayContext

  constructor(options: CardGatewayOptions) {
    const {
      checkoutUrl,
      s2sUrl,
      merchantKey,
      clientKey,
      password,
      environment,
      digest,
      hashInputs,
      callbackFields,
      paths,
      ...core
    } = options
    this.#checkoutUrl = checkBaseUrl('checkoutUrl', checkoutUrl)
    this.#s2sUrl = checkBaseUrl('s2sUrl', s2sUrl)
    this.#merchantKey = new Secret(requiredString('merchantKey', merchantKey))
    this.#clientKey = new Secret(requiredString('clientKey', clientKey))
    this.#password = new Secret(requiredString('password', password))
    if (digest !== undefined && digest !== 'md5' && digest !== 'sha256') {
      throw new RequestValidationError('client', [{ path: 'digest', message: 'must be "md5" or "sha256"' }])
    }
    this.#digest = digest ?? 'md5'
    this.#environment = environment
    this.#http = new HttpClient({ packageName: 'card-gateway', packageVersion: pkg.version, options: core })
    const overrides = { ...hashInputs }
    const resolvedPaths = {
      purchase: checkPath('paths.purchase', paths?.purchase, '/api/v1/session'),
      status: checkPath('paths.status', paths?.status, '/api/v1/payment/status'),
    }
    this.#ctx = {
      http: this.#http,
      checkoutUrl: this.#checkoutUrl,
      s2sUrl: this.#s2sUrl,
      environment,
      paths: resolvedPaths,
      merchantKey: () => this.#merchantKey.reveal(),
      clientKey: () => this.#clientKey.reveal(),
      sign: (inputs) =>
        sign(
          inputs.map((input) => input.value ?? ''),
          this.#password,
          this.#digest,
        ),
      hashInputs: (operation) => overrides[operation],
    }
    this.checkout = new Checkout(this.#ctx)
    this.s2s = new S2s(this.#ctx)
    this.callbacks = new Callbacks(this.#password, {
      digest: this.#digest,
      ...(callbackFields ? { fields: callbackFields } : {}),
    })
  }

  /** The hash of `values` (wire strings in order) with the password appended: for raw requests. */
  sign(values: readonly string[]): string {
    return sign(values, this.#password, this.#digest)
  }

  /** Each step of the signature of `inputs` with this client's password (masked) and digest. */
  explainSignature(inputs: readonly SignatureInput[] | readonly string[]): SignatureExplanation {
    return explainSignature(inputs, this.#password, this.#digest)
  }

  /**
   * The raw escape hatch: any path under `checkoutUrl` or `s2sUrl`, same transport, retries and
   * `CardGatewayError`. Add keys and `hash` yourself (see `sign`). Default retry: `safe` for GET,
   * `unsent-only` otherwise.
   */
  request<T = unknown>(input: CardGatewayRawRequest, call?: CallOptions): ApiPromise<T> {
    const { base, ...rest } = input
    const baseUrl = base === 's2s' ? this.#s2sUrl : this.#checkoutUrl
    const req = buildRawRequest('request', baseUrl, rest, {})
    return this.#http.send(
      req,
      gatewayHandler(this.#ctx, (body) => body as T),
      call,
    )
  }

  /** Closes the client's connection pool. */
  close(): Promise<void> {
    return this.#http.close()
  }

  toJSON(): Record<string, unknown> {
    return { checkoutUrl: this.#checkoutUrl, s2sUrl: this.#s2sUrl, environment: this.#environment }
  }

  [inspect.custom](): string {
    return `CardGateway ${inspect(this.toJSON())}`
  }
}
