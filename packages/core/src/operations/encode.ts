/** Wire encoders shared by the services: JSON and `application/x-www-form-urlencoded`. */

import type { HttpRequest } from '../transport/request.js'

const JSON_TYPE = 'application/json'
const FORM_TYPE = 'application/x-www-form-urlencoded'

/** A JSON request body. */
export function jsonBody(value: unknown): NonNullable<HttpRequest['body']> {
  return { contentType: JSON_TYPE, text: JSON.stringify(value) }
}

/** A form body from wire fields in order; `undefined` values are left out. */
export function formBody(fields: Readonly<Record<string, string | undefined>>): NonNullable<HttpRequest['body']> {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined) params.append(name, value)
  }
  return { contentType: FORM_TYPE, text: params.toString() }
}

export type QueryValue = string | number | boolean | undefined | null
export type Query = Readonly<Record<string, QueryValue | readonly QueryValue[]>>

/** Appends `query` to `url`; `undefined` and `null` values are left out, arrays repeat the name. */
export function withQuery(url: string, query: Query | undefined): string {
  if (!query) return url
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value]
    for (const v of values) if (v !== undefined && v !== null) params.append(name, String(v))
  }
  const text = params.toString()
  return text ? `${url}${url.includes('?') ? '&' : '?'}${text}` : url
}
