/** How the bill payment simulator words its answers: ProblemDetails bodies (RFC 9457) and reading a JSON request. */

import { HttpResponse } from 'msw'

export const PROBLEM_BASE = 'https://paywire.dev/problems/bill-payment/'

/** A problem body the simulator answers with (RFC 9457). */
export interface SimulatorProblem {
  readonly type?: string
  readonly title?: string
  readonly status?: number
  readonly detail?: string
  readonly [extension: string]: unknown
}

export function problem(
  status: number,
  slug: string,
  title: string,
  detail: string,
  extra: Record<string, unknown> = {},
) {
  return HttpResponse.json(
    { type: PROBLEM_BASE + slug, title, status, detail, ...extra },
    { status, headers: { 'content-type': 'application/problem+json' } },
  )
}

export function validation(errors: Record<string, string[]>) {
  return problem(400, 'validation', 'One or more validation errors occurred.', 'See errors.', { errors })
}

export async function readJson(request: Request): Promise<{ ok: true; value: unknown; text: string } | { ok: false }> {
  const text = await request.text()
  try {
    return { ok: true, value: JSON.parse(text), text }
  } catch {
    return { ok: false }
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Stable text of a JSON value with sorted keys, to tell "same body" from "different body". */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (isRecord(value)) {
    const keys = Object.keys(value).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`
  }
  return JSON.stringify(value)
}
