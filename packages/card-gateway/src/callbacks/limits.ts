/**
 * The shape limits of a callback body (size, fields, depth), checked before anything is decoded so
 * a hostile body is refused cheaply, and the refusals the body readers share.
 */

import { SignatureVerificationError } from '@paywire/core'

/** The default cap on a callback body, in bytes (64 KiB). */
export const DEFAULT_CALLBACK_MAX_BYTES = 64 * 1024

/**
 * The deepest a JSON callback may nest, its own braces being level 1: deeper bodies are refused
 * (`too_deep`, answered 400 by the inbox) before they are parsed. A genuine callback nests two or
 * three levels; thousands of levels would exhaust the stack of any recursive reader.
 */
export const MAX_CALLBACK_DEPTH = 16

/**
 * The most fields a callback may carry, form pairs or JSON values inside the body (object members
 * and array elements, at any depth): more are refused (`too_many_fields`, answered 400 by the
 * inbox) before any is decoded. A genuine callback has a few dozen; a body of thousands of tiny
 * fields is an attack on the parser.
 */
export const MAX_CALLBACK_FIELDS = 256

export function checkSize(bytes: number, limit: number, atLeast = false): void {
  if (bytes <= limit) return
  throw new SignatureVerificationError(
    'body_too_large',
    `callback body is ${atLeast ? 'at least ' : ''}${bytes} bytes, over the ${limit}-byte limit (option maxBodyBytes); it is refused before parsing. A genuine callback is a few hundred bytes.`,
    { bytes, limitBytes: limit },
  )
}

export function duplicate(name: string): SignatureVerificationError {
  return new SignatureVerificationError(
    'duplicate_field',
    `callback body carries the field "${name}" more than once; it is refused because a duplicated field makes the signed value ambiguous.`,
    { duplicateField: name },
  )
}

export function tooManyFields(): SignatureVerificationError {
  return new SignatureVerificationError(
    'too_many_fields',
    `callback body carries more than ${MAX_CALLBACK_FIELDS} fields (form pairs, or JSON members and array elements at any depth); it is refused before any field is decoded. A genuine callback has a few dozen.`,
    { limitFields: MAX_CALLBACK_FIELDS },
  )
}

export function tooDeep(): SignatureVerificationError {
  return new SignatureVerificationError(
    'too_deep',
    `callback JSON body nests deeper than ${MAX_CALLBACK_DEPTH} levels; it is refused before it is parsed. A genuine callback nests two or three.`,
    { limitDepth: MAX_CALLBACK_DEPTH },
  )
}
