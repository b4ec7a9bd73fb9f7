import { Agent, request } from 'undici'
import { measureLoad } from './measure.js'
import { s2sStatus } from './requests.js'
import { startServer } from './server.js'

const server = await startServer()
for (const variant of ['plain', 'nextTick', 'immediate', 'plain']) {
  await server.connectionsOpened()
  const agent = new Agent({ keepAliveTimeout: 4_000 })
  await measureLoad(
    async () => {
      const req = s2sStatus(server.url)
      const res = await request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        dispatcher: agent,
      })
      await res.body.text()
      if (variant === 'nextTick') await new Promise((r) => process.nextTick(r))
      if (variant === 'immediate') await new Promise((r) => setImmediate(r))
    },
    { concurrency: 16, warmupMs: 0, durationMs: 600 },
  )
  await agent.close()
  console.log(variant, await server.connectionsOpened())
}
await server.stop()
