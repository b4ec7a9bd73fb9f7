/**
 * A followed payment as its store record keeps it: the last state delivered (so updates only move
 * forward, whichever instance looks next), the schedule, and the warnings already given. Versioned
 * JSON in the record's fields; times in ms since the epoch.
 */

import type { FollowedRef, FollowSource } from './types.js'

/** The key prefix of follow records: the follower owns these, and only these, in its store. */
export const FOLLOW_KEY_PREFIX = 'follow:v1:'

/** How a payment came to be followed. */
export type FollowOrigin = 'client' | 'track' | 'journal' | 'callback'

export interface FollowState {
  readonly v: 1
  readonly ref: string
  readonly api: string | undefined
  readonly origin: FollowOrigin
  /** When following began. */
  readonly startedAt: number
  /** The last state delivered, its stage, and whether it was final. */
  state: string | undefined
  stage: number
  final: boolean
  /** Scheduled lookups made so far: the index into the schedule of the next wait. */
  step: number
  /** When the next scheduled lookup is due. */
  lookupAt: number
  /** When the record was last asked to be due: a run well before it was woken by a callback. */
  dueAt: number
  /** A final state seen once that must be seen again after its settle time before it is delivered. */
  candidate: { readonly state: string; readonly at: number } | undefined
  /** When the state that awaits capture was first confirmed. */
  authorizedAt: number | undefined
  /** Warnings given (`stuck`, `authorization_expiring:<authorizedAt>`): each once. */
  said: string[]
}

/** The store key of `ref`'s follow record. */
export function followKey(ref: string): string {
  return `${FOLLOW_KEY_PREFIX}${ref}`
}

/** A new follow record's state. */
export function startState(followed: FollowedRef, origin: FollowOrigin, now: number, firstWaitMs: number): FollowState {
  return {
    v: 1,
    ref: followed.ref,
    api: followed.api,
    origin,
    startedAt: now,
    state: undefined,
    stage: 0,
    final: false,
    step: 0,
    lookupAt: now + firstWaitMs,
    dueAt: now + firstWaitMs,
    candidate: undefined,
    authorizedAt: undefined,
    said: [],
  }
}

export function encodeState(state: FollowState): string {
  return JSON.stringify(state)
}

/** The state in `fields`, or `undefined` when they are not a follow record of this version. */
export function decodeState(fields: string | undefined): FollowState | undefined {
  if (fields === undefined) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(fields)
  } catch {
    return undefined
  }
  const s = parsed as Partial<FollowState> | null
  if (s === null || typeof s !== 'object' || s.v !== 1 || typeof s.ref !== 'string') return undefined
  if (typeof s.startedAt !== 'number' || typeof s.lookupAt !== 'number' || typeof s.stage !== 'number') return undefined
  return {
    v: 1,
    ref: s.ref,
    api: typeof s.api === 'string' ? s.api : undefined,
    origin: s.origin ?? 'track',
    startedAt: s.startedAt,
    state: typeof s.state === 'string' ? s.state : undefined,
    stage: s.stage,
    final: s.final === true,
    step: typeof s.step === 'number' ? s.step : 0,
    lookupAt: s.lookupAt,
    dueAt: typeof s.dueAt === 'number' ? s.dueAt : s.lookupAt,
    candidate:
      s.candidate && typeof s.candidate.state === 'string' && typeof s.candidate.at === 'number'
        ? { state: s.candidate.state, at: s.candidate.at }
        : undefined,
    authorizedAt: typeof s.authorizedAt === 'number' ? s.authorizedAt : undefined,
    said: Array.isArray(s.said) ? s.said.filter((x): x is string => typeof x === 'string') : [],
  }
}

/** The source an update confirmed now is credited to. */
export function sourceOf(state: FollowState, woken: boolean): FollowSource {
  if (woken) return 'callback'
  if (state.state === undefined && (state.origin === 'journal' || state.origin === 'callback')) return state.origin
  return 'lookup'
}
