/** The client options of the signature, checked: `signature`, and how it combines with the others. */

import { RequestValidationError } from '@paywire/core'
import {
  SIGNATURE_PRESETS,
  type SignatureFunction,
  type SignatureOption,
  type SignaturePreset,
  strrevFormulaOf,
} from './presets.js'

/** `signature`, checked: an options error names the allowed presets. */
export function checkSignatureOption(value: unknown): SignatureOption {
  if (value === undefined) return 'seed'
  if (typeof value === 'function') return value as SignatureFunction
  if (typeof value === 'string' && (SIGNATURE_PRESETS as readonly string[]).includes(value)) {
    return value as SignaturePreset
  }
  throw new RequestValidationError(
    'CardGateway',
    [
      {
        path: 'signature',
        message: `must be one of the presets ${SIGNATURE_PRESETS.map((p) => `"${p}"`).join(', ')} or a signer function (wire fields and password → hex hash)`,
      },
    ],
    'options',
  )
}

/**
 * How `signature` combines with the other signing options: `payerLookup` is what the strrev scheme
 * needs (and only it uses); a signer function decides its own inputs and digest.
 */
export function checkSignatureCombination(
  signature: SignatureOption,
  actionOf: (operation: string) => string | undefined,
  digest: string | undefined,
  overrides: Readonly<Record<string, readonly string[] | undefined>>,
  payerLookup: unknown,
): void {
  if (payerLookup !== undefined && typeof payerLookup !== 'function') {
    optionsError(
      'payerLookup',
      'must be a function ({ operation, transId, orderId }) => { email, cardFirst6, cardLast4 } | { email, cardToken } | undefined',
    )
  }
  if (signature === 'card-md5-strrev') {
    if (payerLookup === undefined) {
      optionsError(
        'payerLookup',
        'is required by signature "card-md5-strrev": that scheme hashes the payer email and card digits, which S2S requests and callbacks do not carry, so they must come from your records of the original payment',
      )
    }
    for (const operation of Object.keys(overrides)) {
      const action = actionOf(operation)
      if (action !== undefined && strrevFormulaOf(action) !== undefined) {
        optionsError(
          `hashInputs.${operation}`,
          'does not apply with signature "card-md5-strrev": that scheme fixes what this action hashes (use a signer function for another scheme)',
        )
      }
    }
    return
  }
  if (payerLookup !== undefined) optionsError('payerLookup', 'is used only by signature "card-md5-strrev"')
  if (typeof signature === 'function') {
    if (digest !== undefined)
      optionsError('digest', 'does not apply with a signer function (it computes the whole hash)')
    if (Object.keys(overrides).length > 0) {
      optionsError('hashInputs', 'does not apply with a signer function (it reads the wire fields it signs)')
    }
  }
}

function optionsError(path: string, message: string): never {
  throw new RequestValidationError('CardGateway', [{ path, message }], 'options')
}
