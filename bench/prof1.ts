import { createScenarios } from './clients.js'
import { StubDispatcher } from './stub.js'

const { scenarios, close } = createScenarios('https://stub.example', new StubDispatcher())
const s = scenarios.find((x) => x.name === (process.argv[2] ?? 's2s-status'))!
const call = s.calls[(process.argv[3] ?? 'sdk') as 'sdk']!
for (let i = 0; i < 20000; i++) await call()
const t = process.cpuUsage()
for (let i = 0; i < 100000; i++) await call()
const u = process.cpuUsage(t)
console.log(process.argv[3], ((u.user + u.system) / 100000).toFixed(2), 'µs/call')
await close()
