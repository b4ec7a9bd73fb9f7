/**
 * How the callback inbox files a verified event in its store: under which key (versioned, with the
 * keys earlier versions used), for which payment, and which of its fields (an allow-list, never the
 * raw body or the hash), optionally encrypted by the merchant's own keys.
 */

import { type NewEvent, RequestValidationError } from '@paywire/core'
import { confirmedDedupeKey, needsConfirmation } from './confirm.js'
import { type CallbackEvent, dedupeKey } from './event.js'

/**
 * The fields of an event the inbox stores, so `onEvent` gets them from the record: the documented
 * callback fields and the marks verification and confirmation set. Never `hash` (verified on
 * receipt; kept, it would only help someone guess the password offline) and no field outside the
 * list (a payer's e-mail, custom data): `storeFields` adds names you need.
 */
export const CALLBACK_STORED_FIELDS: readonly string[] = Object.freeze([
  'id',
  'order_number',
  'order_amount',
  'order_currency',
  'order_description',
  'order_status',
  'type',
  'status',
  'reason',
  'card_token',
  'recurring_token',
  'transStatus',
  'eci',
  'protocolVersion',
  'action',
  'result',
  'order_id',
  'trans_id',
  'amount',
  'currency',
  'creditvoid_date',
  'authenticated',
  'confirmedBy',
  'passwordIndex',
])

/**
 * Encrypts the stored fields with your own keys (a KMS, libsodium…): the store then holds only what
 * `encrypt` returns. Both run in your process; a `decrypt` that throws makes the run fail (counted).
 */
export interface FieldEncryption {
  encrypt(plaintext: string): string | Promise<string>
  decrypt(ciphertext: string): string | Promise<string>
}

/**
 * The version of the inbox's keys: a key built another way in a later version names its old form in
 * `previousKeys`, so an event done before an upgrade is never run again after it.
 */
const KEY_VERSION = 'v2'

/**
 * The order a callback belongs to: `order_number` (Checkout) or `order_id` (S2S CARD). Follow and
 * lock a payment by it, never by `trans_id`, which changes between callbacks of one payment under
 * cascading (rule Platform 24). `undefined` when the callback carries neither.
 */
export function orderOf(event: CallbackEvent): string | undefined {
  const order = event.order_number ?? event.order_id
  return order === '' ? undefined : order
}

/**
 * The key an event is filed under. An S2S callback on card-md5-strrev not yet confirmed is filed
 * under what it claims (its state is unsigned: the worker confirms it by a lookup, then files the
 * confirmed event under the key of the state the gateway reports); every other event under its
 * dedupe key. Version 1 keys were `callback:<dedupe key>`: they are the previous keys.
 */
export function filingOf(event: CallbackEvent): { key: string; previousKeys: string[] } {
  if (needsConfirmation(event)) return { key: `callback:${KEY_VERSION}:claimed:${dedupeKey(event)}`, previousKeys: [] }
  const dedupe = event.confirmedBy === 'lookup' ? confirmedDedupeKey(event) : dedupeKey(event)
  return { key: `callback:${KEY_VERSION}:${dedupe}`, previousKeys: [`callback:${dedupe}`] }
}

/** Checks `storeFields`: names of fields, none of them `hash`. */
export function checkStoreFields(value: unknown): readonly string[] {
  if (value === undefined) return CALLBACK_STORED_FIELDS
  if (!Array.isArray(value) || value.some((name) => typeof name !== 'string' || name === '')) {
    throw new RequestValidationError(
      'callbacks.handler',
      [{ path: 'storeFields', message: 'must be an array of field names (non-empty strings)' }],
      'options',
    )
  }
  if (value.includes('hash')) {
    throw new RequestValidationError(
      'callbacks.handler',
      [{ path: 'storeFields', message: 'must not list "hash": it is verified on receipt and never stored' }],
      'options',
    )
  }
  return Object.freeze([...new Set([...CALLBACK_STORED_FIELDS, ...(value as string[])])])
}

/** The record of `event`: its key, payment and allow-listed fields, encrypted when asked. */
export async function recordOf(
  event: CallbackEvent,
  names: readonly string[],
  encryption: FieldEncryption | undefined,
): Promise<NewEvent> {
  const kept: Record<string, string> = {}
  for (const name of names) {
    const value = event[name]
    if (typeof value === 'string') kept[name] = value
  }
  const text = JSON.stringify(kept)
  const fields = encryption ? await encryption.encrypt(text) : text
  if (typeof fields !== 'string') throw new TypeError('encryption.encrypt must return a string')
  return { ...filingOf(event), fields, ref: orderOf(event) ?? event.id ?? event.trans_id ?? '' }
}

/**
 * The event a record holds, as `onEvent` gets it: the stored fields, and an empty `hash` (it was
 * verified when the delivery came and is not stored).
 */
export async function eventOf(
  fields: string | undefined,
  encryption: FieldEncryption | undefined,
): Promise<CallbackEvent> {
  if (fields === undefined) throw new Error('the record holds no fields (it is done)')
  const text = encryption ? await encryption.decrypt(fields) : fields
  return parseFields(text)
}

/** The stored fields without decrypting (for a report made while no run holds the event), or undefined. */
export function peekEvent(
  fields: string | undefined,
  encryption: FieldEncryption | undefined,
): CallbackEvent | undefined {
  if (fields === undefined || encryption !== undefined) return undefined
  try {
    return parseFields(fields)
  } catch {
    return undefined
  }
}

function parseFields(text: string): CallbackEvent {
  const parsed: unknown = JSON.parse(text)
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new TypeError('the stored fields are not an object')
  }
  const event: Record<string, string> = {}
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') throw new TypeError(`the stored field ${JSON.stringify(name)} is not a string`)
    if (name !== 'hash') event[name] = value
  }
  return { ...event, hash: '' } as CallbackEvent
}
