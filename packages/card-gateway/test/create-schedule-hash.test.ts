import { RequestValidationError } from '@paywire/core'
import { describe, expect, it } from 'vitest'
import { simulatorHash } from '../src/testing/index.js'
import { form, PASSWORD, rejection, setup } from './helpers.js'

const schedule = { name: 'Monthly', interval_length: 1, interval_unit: 'month', payments_count: 12 } as const

describe('S2S CREATE_SCHEDULE hash inputs', () => {
  it('refuses to send without an explicit hashInputs["s2s.createSchedule"]: its inputs are not published, and a password-only hash would let anyone sign any schedule', async () => {
    const ctx = await setup()
    const error = await rejection(ctx.gw.s2s.createSchedule(schedule))
    expect(error).toBeInstanceOf(RequestValidationError)
    const issue = (error as RequestValidationError).issues[0]
    expect(issue?.path).toBe('hashInputs.s2s.createSchedule')
    expect(issue?.message).toMatch(/not published/)
    expect(issue?.message).toMatch(/hashInputs/)
    expect(ctx.server.requests).toHaveLength(0)
  })

  it('signs the configured inputs when the caller names them', async () => {
    const ctx = await setup({
      sim: { hashInputs: { CREATE_SCHEDULE: ['name', 'interval_length'] } },
      client: { hashInputs: { 's2s.createSchedule': ['name', 'interval_length'] } },
    })
    const result = await ctx.gw.s2s.createSchedule(schedule)
    expect(result.schedule_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(form(ctx.server.requests[0]?.body ?? '')['hash']).toBe(simulatorHash(['Monthly', '1'], PASSWORD))
  })

  it('honours an explicit empty list (password alone, the weak scheme some brands use)', async () => {
    const ctx = await setup({ client: { hashInputs: { 's2s.createSchedule': [] } } })
    await ctx.gw.s2s.createSchedule(schedule)
    expect(ctx.server.requests).toHaveLength(1)
    expect(form(ctx.server.requests[0]?.body ?? '')['hash']).toBe(simulatorHash([], PASSWORD))
  })
})
