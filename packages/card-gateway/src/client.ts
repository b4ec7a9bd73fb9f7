/** `CardGateway`: one client for Checkout (JSON) and S2S CARD (form), its signer and callback verifier. */

import {
  type ApiPromise,
  type Intent,
  type IntentReconciled,
  type OperationOptions,
  type PaywireError,
  type ReconcileOptions,
  type ResponseSchema,
  type ResultOf,
  type Secret,
  ServiceClient,
} from '@paywire/core'
import {
  accountFingerprint,
  checkBaseUrl,
  Following,
  type OperationClient,
  ownedOutcome,
  readCredentials,
  resolveEnvLogger,
  type ServiceClientSetup,
} from '@paywire/core/engine'
import pkg from '../package.json' with { type: 'json' }
import { Callbacks } from './callbacks/callbacks.js'
import { SentRefunds } from './callbacks/sent-refunds.js'
import {
  type CardGatewayOptions,
  type CardGatewayRawRequest,
  checkHashInputs,
  checkPath,
  checkRotationOrder,
  checkUppercase,
  invalid,
  readCallbackPasswords,
  resolveRules,
} from './client-options.js'
import { type CardGatewayOperation, ENDPOINTS, SIGNED_OPERATIONS } from './endpoints.js'
import { gatewayAnswers } from './errors.js'
import type { GatewayContext } from './fields.js'
import { type CardReconciled, reconcileCard } from './reconcile.js'
import { type Checkout, CheckoutResource } from './resources/checkout.js'
import { cardCallEffect, lookupCardPayment, Payments } from './resources/payments.js'
import { type S2s, S2sResource } from './resources/s2s.js'
import { settleActionAtOnce } from './settle-at-once.js'
import { checkSignatureCombination, checkSignatureOption } from './signing/options.js'
import { createRequestSigner } from './signing/presets.js'
import {
  createSigner,
  type DigestName,
  explainSignature,
  type SignatureExplanation,
  type SignatureInput,
  type Signer,
  type UppercaseMode,
} from './signing/signature.js'

// The options are the constructor's parameter: re-exported where the client is, for the entry points.
export type { CardGatewayOptions, CardGatewayPlatformDefaults, CardGatewayRawRequest } from './client-options.js'

/**
 * The card gateway client; the rules it follows, and the IDs its docs cite (`rule Limits 1`), are at
 * https://github.com/paywire/paywire/blob/main/docs/card-gateway-rules.md. Credentials are kept as `Secret`s in private
 * fields: `inspect` and `JSON.stringify` show the base URLs only, and the password never leaves
 * the process (rule Authentication 2).
 */
export class CardGateway extends ServiceClient {
  /** Checkout: purchase, credit, status. */
  readonly checkout: Checkout
  /** S2S CARD: its actions and `captureIfPending`. */
  readonly s2s: S2s
  /** Callback verification over raw bodies. */
  readonly callbacks: Callbacks
  /** Following payments to their final state: `follow()`. */
  readonly payments: Payments

  readonly #checkoutUrl: string
  readonly #s2sUrl: string
  readonly #password: Secret
  readonly #digest: DigestName
  readonly #uppercase: UppercaseMode
  /** The request signer, with this client's password, digest and uppercasing. */
  readonly #signer: Signer
  readonly #environment: string | undefined
  /** The engine, typed with this client's context (the public class names no engine type). */
  readonly #engine: OperationClient<GatewayContext>

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
      s2sCallbackFields,
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
    checkRotationOrder(credentials.password, callbackPasswords)
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
      // A CAPTURE or VOID whose answer on a kept-alive connection was not believed, settled at once.
      // The engine it is given is the one built with this `context` (the shell's setup names no context type).
      settleAtOnce: settleActionAtOnce as ServiceClientSetup<unknown>['settleAtOnce'],
      // The keys that say which merchant account a call was for (never the password).
      account: accountFingerprint('card-gateway', [credentials.merchantKey, credentials.clientKey]),
    })
    this.#checkoutUrl = checkoutBase
    this.#s2sUrl = s2sBase
    this.#password = credentials.password
    this.#digest = digest ?? 'md5'
    this.#uppercase = uppercase
    this.#signer = signer
    this.#environment = environment
    this.#engine = this.engine as OperationClient<GatewayContext>
    this.checkout = new CheckoutResource(this.#engine)
    // The CREDITVOIDs this client sends, and the journal's open ones: what explains a refund callback.
    const refunds = new SentRefunds(() => this.#engine.journal)
    this.s2s = new S2sResource(this.#engine, refunds)
    // The follower decides final states, like reconciliation: its lookups go on connections of their own.
    const ownLookups = this.#engine.onOwnConnections()
    const ownCheckout = new CheckoutResource(ownLookups)
    const ownS2s = new S2sResource(ownLookups)
    const following = new Following({
      engine: this.#engine,
      service: 'card-gateway',
      operation: 'payments.follow',
      lookup: (followed) => lookupCardPayment(ownCheckout, ownS2s, followed),
      effectOf: cardCallEffect,
      reconcileJournal: this.#engine.journal && ((take) => this.reconcileTaking(take)),
    })
    this.payments = new Payments(following, ownCheckout, ownS2s)
    this.callbacks = new Callbacks(
      callbackPasswords,
      {
        digest: this.#digest,
        uppercase: checkUppercase(platformDefaults?.callbackUppercase, 'platformDefaults.callbackUppercase'),
        ...(callbackFields ? { fields: callbackFields } : {}),
        ...(s2sCallbackFields ? { s2sFields: s2sCallbackFields } : {}),
        signature,
        ...(payerLookup ? { payerLookup } : {}),
      },
      // The logger option, else the console level PAYWIRE_LOG names: a refused callback is logged at warn.
      core.logger ?? resolveEnvLogger(),
      // The inbox confirms strrev S2S callbacks through this client's own lookup (its transport, signer, retries).
      // A confirming lookup decides what onEvent is told, like reconciliation: on a connection of its own.
      (transId) => ownS2s.getTransStatus({ trans_id: transId }),
      refunds,
      following.followers,
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
  override request<S extends ResponseSchema | undefined = undefined>(
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
    return this.closeSettled(subject, await this.#settle(subject, options))
  }

  /**
   * Reconciles every open intent of the `journal` (after a crash or a restart), oldest first, and
   * closes those now settled; `still_unknown` ones stay open. Lookups only.
   */
  override reconcileAll(options?: ReconcileOptions): Promise<IntentReconciled[]> {
    return this.reconcileEach((intent) => this.#settle(intent, options), options)
  }

  /** One subject's outcome by its lookup; the caller closes its intent (reconcile, or reconcileAll's run). */
  async #settle(subject: PaywireError | Intent, options?: ReconcileOptions): Promise<CardReconciled> {
    const checked = await this.reconcileSubject(subject, options)
    return ownedOutcome(checked, await reconcileCard(checked, this.#engine, options), options)
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
