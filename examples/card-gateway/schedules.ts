/**
 * Card gateway: create a recurring schedule, change it, and delete it. There is no action to read
 * a schedule and no CANCEL_SCHEDULE: a schedule is cancelled with DELETE_SCHEDULE (rule S2S 1).
 *
 * Run: npx tsx examples/card-gateway/schedules.ts
 * Env: PAYWIRE_CARD_* (see purchase-and-status.ts; else a local simulator), and
 * PAYWIRE_CARD_CREATE_SCHEDULE_HASH_INPUTS: the comma-separated fields your gateway signs for CREATE_SCHEDULE
 */
import { CardGateway } from '@paywire/card-gateway'
import { cardGatewayConnection } from '../shared/connect.js'
import { runIfMain, show } from '../shared/run.js'

export async function main(): Promise<void> {
  const connection = await cardGatewayConnection()
  // CREATE_SCHEDULE's hash inputs are not published, so the client has no default and refuses to
  // send until they are named: `hashInputs: { 's2s.createSchedule': [...] }`. The simulator's
  // connection names the ones it checks; for your sandbox set PAYWIRE_CARD_CREATE_SCHEDULE_HASH_INPUTS.
  const gw = new CardGateway(connection.options)
  try {
    const created = await gw.s2s.createSchedule({
      name: 'Monthly beans',
      interval_length: 1,
      interval_unit: 'month',
      payments_count: 12,
    })
    const schedule_id = String(created.schedule_id)
    show('s2s.createSchedule →', { schedule_id })

    const updated = await gw.s2s.updateSchedule({ schedule_id, payments_count: 6 })
    show('s2s.updateSchedule({ payments_count: 6 }) →', { result: updated.result })

    const deleted = await gw.s2s.deleteSchedule({ schedule_id })
    show('s2s.deleteSchedule →', { result: deleted.result })
  } finally {
    await gw.close()
    await connection.close()
  }
}

runIfMain(import.meta.url, main)
