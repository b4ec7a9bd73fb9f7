#!/usr/bin/env node
/**
 * `node scripts/check-runtimes.mjs`: the packed tarballs on runtimes other than Node. Packs the
 * packages as built (scripts/pack-all.mjs; run `pnpm build` first), installs them into one project
 * outside the repository, starts `paywire sim` (the CLI, on Node) on a loopback port, and on each
 * runtime runs a small program: a signed Checkout purchase against that simulator and a callback
 * verify (a body the CLI signed, and the same body tampered, which must be refused), then the
 * transport's rules against a misbehaving loopback service (a 302 is the answer and never followed,
 * a body over maxResponseBytes is refused, a silent service ends at the deadline). Runtimes, each
 * from the npm registry: Bun (`bun`), Deno (`deno`), the Workers runtime (`workerd`, the worker
 * bundled by esbuild). Prints one line per runtime, PASS / SKIP (why: the tool could not be
 * installed or started here) / FAIL; exits 1 on a FAIL. On Bun and Deno it also says which transport
 * and digest provider the SDK chose, and runs the purchase once more on undici (informational).
 *
 * Options: `--only bun,deno,workerd`; `PAYWIRE_RUNTIME_TOOLS=<dir>`: a folder with the runtimes
 * installed already (node_modules/.bin/bun, deno, workerd), else they are installed into a temp folder.
 *
 * The callback recipes that need these runtimes run here too, from examples/callbacks/ as written:
 * `hono-bun.ts` on Bun and `worker.ts` in workerd, each given the callbacks `paywire sim
 * --s2s-callbacks` signed (a sale and an S2S capture: 200 and run; a body read first: 500
 * body_already_parsed; a tampered one: 400 hash_mismatch).
 */
import { execFile, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { packAll } from './pack-all.mjs'

const started = Date.now()
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1].split(',') : undefined
const wanted = (name) => only === undefined || only.includes(name)
const work = mkdtempSync(join(tmpdir(), 'paywire-runtimes-'))
const keep = process.env.PAYWIRE_KEEP_RUNTIME_DIR === '1'

/** Runs a command; resolves with stdout, rejects with an error carrying the last lines of its output. */
/**
 * Bundles a Worker entry for workerd: Node built-ins stay imports (nodejs_compat serves them); undici
 * is left out, as on the Workers runtime the SDK sends with its fetch and never loads undici.
 */
function bundleWorker(project, entry, outfile) {
  return run(
    join(project, 'node_modules', '.bin', 'esbuild'),
    [
      entry,
      '--bundle',
      '--format=esm',
      '--platform=node',
      '--conditions=workerd,worker',
      '--external:undici',
      '--external:undici/*',
      `--outfile=${outfile}`,
    ],
    project,
  )
}

/** A loopback port free a moment ago, for a runtime that cannot listen on port 0 and say which. */
function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}

async function run(command, args, cwd, { timeout = 120_000, env } = {}) {
  try {
    const { stdout } = await promisify(execFile)(command, args, {
      cwd,
      timeout,
      maxBuffer: 32 * 1024 * 1024,
      env: { ...process.env, ...env },
    })
    return stdout
  } catch (error) {
    const output = `${error.stdout ?? ''}\n${error.stderr ?? ''}`.trim().split('\n').slice(-8).join('\n')
    throw new Error(`${command} ${args.join(' ')} failed (${error.code ?? error.signal ?? 'error'}):\n${output}`)
  }
}

const npm = (args, cwd, options) => run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], cwd, options)

// ── the packed SDK in a project outside the repository ─────────────────────────────────────────

const project = join(work, 'project')
mkdirSync(project)
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'runtimes', private: true, type: 'module' }))
// The CLI (for `paywire sim`) depends on every SDK package: all of them are packed and installed.
const { tarballs } = await packAll({ destination: join(work, 'packs') })

// The runtimes install beside the SDK (in parallel): each may fail alone, which skips only it.
const toolsDir = process.env.PAYWIRE_RUNTIME_TOOLS ?? join(work, 'tools')
const tools = { bun: 'bun', deno: 'deno', workerd: 'workerd' }
const toolBin = (name) => join(toolsDir, 'node_modules', '.bin', name)
const installTool = async (name) => {
  if (existsSync(toolBin(name))) return toolBin(name)
  mkdirSync(toolsDir, { recursive: true })
  if (!existsSync(join(toolsDir, 'package.json'))) writeFileSync(join(toolsDir, 'package.json'), '{"private":true}')
  await npm(['install', tools[name]], toolsDir, { timeout: 180_000 })
  if (!existsSync(toolBin(name))) throw new Error(`npm installed ${tools[name]} but no ${name} binary`)
  return toolBin(name)
}
// One npm at a time in the tools folder: parallel installs there would overwrite each other's tree.
let toolQueue = Promise.resolve()
const queued = (name) => {
  const next = toolQueue.then(() => installTool(name))
  toolQueue = next.catch(() => undefined)
  return next
}
const toolInstalls = Object.fromEntries(
  Object.keys(tools)
    .filter(wanted)
    .map((name) => [name, queued(name)]),
)
for (const install of Object.values(toolInstalls)) install.catch(() => undefined)

await npm(['install', ...Object.values(tarballs), 'esbuild@0.25', 'hono@^4.13.19'], project, {
  timeout: 180_000,
})

// ── the simulator, and a callback body the CLI signs ───────────────────────────────────────────

const require = createRequire(join(project, 'package.json'))
const cliBin = join(project, 'node_modules', '@paywire', 'cli', require('@paywire/cli/package.json').bin.paywire)
const sim = spawn(process.execPath, [cliBin, 'sim', '--port', '0', '--json', '--seed', 'runtimes', '--s2s-callbacks'], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
const simInfo = await new Promise((resolve, reject) => {
  let buffered = ''
  sim.stdout.on('data', (chunk) => {
    buffered += chunk
    const line = buffered.split('\n')[0]
    if (buffered.includes('\n')) resolve(JSON.parse(line))
  })
  sim.once('exit', (code) => reject(new Error(`paywire sim exited (${code}) before it listened`)))
})
sim.stdout.resume()

/** A signed sale callback as the gateway would POST it: `paywire callback send` to a listener of ours. */
async function signedCallback() {
  const bodies = []
  const listener = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      bodies.push(body)
      res.end('OK')
    })
  })
  listener.listen(0, '127.0.0.1')
  await once(listener, 'listening')
  const url = `http://127.0.0.1:${listener.address().port}/cb`
  await run(process.execPath, [cliBin, 'callback', 'send', '--url', url, '--order', 'rt-callback-1'], project, {
    env: { PAYWIRE_CARD_PASSWORD: simInfo.card?.password ?? 'sim-password' },
  })
  listener.close()
  if (bodies.length !== 1) throw new Error(`the CLI delivered ${bodies.length} callbacks, expected 1`)
  return bodies[0]
}
const callbackBody = await signedCallback()

// ── the callback recipes' deliveries: a sale and an S2S capture the simulator signs ────────────────

const sha1md5 = (text) =>
  createHash('sha1').update(createHash('md5').update(text.toUpperCase()).digest('hex')).digest('hex')
/** A sale and a capture callback of one payment, as `paywire sim --s2s-callbacks` signs them. */
async function recipeBodies() {
  const c = simInfo.card
  const order = `rt-recipe-${Date.now()}`
  const json = (url, body) =>
    fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })
  const purchase = { number: order, amount: '12.00', currency: 'USD', description: 'Recipe check' }
  await json(`${c.checkoutUrl}/api/v1/session`, {
    merchant_key: c.merchantKey,
    operation: 'purchase',
    order: purchase,
    success_url: 'https://shop.example/paid',
    cancel_url: 'https://shop.example/cancelled',
    hash: sha1md5(`${order}12.00USDRecipe check${c.password}`),
  })
  await json(`${simInfo.controlUrl}/card/payments/${order}/pay`, { expiry: '01/2038' })
  const payment = await (await fetch(`${simInfo.controlUrl}/card/payments/${order}`)).json()
  await fetch(`${c.s2sUrl}/post`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      action: 'CAPTURE',
      client_key: c.clientKey,
      trans_id: payment.trans_id,
      hash: sha1md5(`${payment.trans_id}${c.password}`),
    }).toString(),
  })
  const listed = await (await fetch(`${simInfo.controlUrl}/callbacks`)).json()
  const mine = listed.filter((entry) => entry.fields.order_number === order || entry.fields.order_id === order)
  const sale = mine.find((entry) => entry.fields.type === 'sale')?.body
  const capture = mine.find((entry) => entry.fields.action === 'CAPTURE')?.body
  if (!sale || !capture) throw new Error(`the simulator signed no sale and capture callback: ${JSON.stringify(mine)}`)
  return { sale, capture, tampered: sale.replace('order_amount=12.00', 'order_amount=1.00') }
}
const recipe = await recipeBodies()
const recipeEnv = {
  PAYWIRE_CARD_CHECKOUT_URL: simInfo.card.checkoutUrl,
  PAYWIRE_CARD_S2S_URL: simInfo.card.s2sUrl,
  PAYWIRE_CARD_MERCHANT_KEY: simInfo.card.merchantKey,
  PAYWIRE_CARD_CLIENT_KEY: simInfo.card.clientKey,
  PAYWIRE_CARD_PASSWORD: simInfo.card.password,
  PAYWIRE_CARD_S2S_CALLBACK_FIELDS: (simInfo.card.s2sCallbackFields ?? ['trans_id']).join(','),
}
for (const file of ['hono-bun.ts', 'worker.ts']) {
  copyFileSync(new URL(`../examples/callbacks/${file}`, import.meta.url), join(project, file))
}
writeFileSync(join(project, 'recipe.json'), JSON.stringify({ env: recipeEnv, ...recipe }))
/** What the recipe answered, judged as drive.ts judges the Node recipes: '' when right, else why not. */
function judge(answers) {
  const problems = []
  if (answers.sale !== '200 OK') problems.push(`sale: ${answers.sale}`)
  if (!answers.capture?.startsWith('200')) problems.push(`capture: ${answers.capture}`)
  if (!answers.readFirst?.startsWith('500 body_already_parsed')) problems.push(`body read first: ${answers.readFirst}`)
  if (answers.tampered !== '400 hash_mismatch') problems.push(`tampered: ${answers.tampered}`)
  return problems.join('; ')
}
// The Hono recipe on Bun: served by Bun.serve, the callbacks posted to it over HTTP.
writeFileSync(
  join(project, 'bun-recipe.ts'),
  `import { callbackApp, gatewayFromEnv } from './hono-bun.ts'
import recipe from './recipe.json'
const runs: string[] = []
const handler = gatewayFromEnv(recipe.env).callbacks.handler({
  onEvent: (e) => void runs.push(\`\${e.type ?? e.action}/\${e.status}\${e.confirmedBy ? '/' + e.confirmedBy : ''}\`),
  recoverEveryMs: 0,
})
const app = callbackApp(handler)
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: app.fetch })
const post = async (body: string) => {
  const res = await fetch(\`http://127.0.0.1:\${server.port}/callbacks/card\`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
  return \`\${res.status} \${await res.text()}\`
}
const read = new Request('http://shop.example/callbacks/card', { method: 'POST', body: recipe.sale })
await read.text() // a middleware read the body first
const first = await app.request(read)
const answers = { sale: await post(recipe.sale), capture: await post(recipe.capture), readFirst: \`\${first.status} \${await first.text()}\`, tampered: await post(recipe.tampered) }
await handler.drain()
server.stop(true)
console.log(JSON.stringify({ answers, runs }))
`,
)

// A misbehaving service for the transport's rules on each runtime: /redirect answers 302 to /target
// (which must never be asked), /big streams 300 KB without a length, /hang never answers.
let targetHits = 0
const hostile = createServer((req, res) => {
  if (req.url.startsWith('/redirect')) res.writeHead(302, { location: '/target' }).end()
  else if (req.url.startsWith('/target')) {
    targetHits++
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"redirect_url":"https://followed.example"}')
  } else if (req.url.startsWith('/big')) {
    res.writeHead(200, { 'content-type': 'application/json' })
    for (let i = 0; i < 300; i++) res.write('x'.repeat(1024))
    res.end()
  } // /hang: no answer; the client's deadline ends the attempt
})
hostile.listen(0, '127.0.0.1')
await once(hostile, 'listening')
const hostileUrl = `http://127.0.0.1:${hostile.address().port}`

// ── the program each runtime runs ───────────────────────────────────────────────────────────────

const card = simInfo.card ?? {}
const config = {
  options: {
    checkoutUrl: card.checkoutUrl,
    s2sUrl: card.s2sUrl,
    merchantKey: card.merchantKey,
    clientKey: card.clientKey,
    password: card.password,
    environment: 'sandbox',
  },
  callbackBody,
  hostileUrl,
}
// The program, as a module exporting `check(config, extraOptions)`: a script imports it on Bun and
// Deno, the worker on workerd. It returns one line of facts or throws.
writeFileSync(
  join(project, 'check.mjs'),
  `import { CardGateway } from '@paywire/card-gateway'
import { nodeCrypto } from '@paywire/core/engine'

export async function check(config, extra = {}) {
  let fetchCalls = 0
  const realFetch = globalThis.fetch
  // Counts the runtime's own fetch: whether the default transport chose it.
  globalThis.fetch = (...args) => {
    fetchCalls++
    return realFetch(...args)
  }
  try {
    const gw = new CardGateway({ ...config.options, ...extra, maxRetries: 0 })
    const order = 'rt-' + crypto.randomUUID().slice(0, 8)
    const session = await gw.checkout.purchase({
      order: { number: order, amount: '25.00', currency: 'USD', description: 'Runtime check' },
      success_url: 'https://shop.example/paid',
      cancel_url: 'https://shop.example/cancelled',
    })
    if (typeof session.redirect_url !== 'string' || session.redirect_url === '') throw new Error('no redirect_url')
    const event = gw.callbacks.verify(config.callbackBody)
    if (event.type !== 'sale' || event.order_number !== 'rt-callback-1') throw new Error('callback read wrong: ' + event.type)
    let refused = false
    try {
      gw.callbacks.verify(config.callbackBody + '0')
    } catch (error) {
      refused = error?.name === 'SignatureVerificationError'
    }
    if (!refused) throw new Error('a tampered callback was not refused')
    // The transport's rules, on a misbehaving service: a 302 is the answer (never followed), an
    // undeclared body over maxResponseBytes is refused, a silent service hits the attempt's deadline.
    const hostile = async (path, options) => {
      const client = new CardGateway({ ...config.options, ...extra, ...options, checkoutUrl: config.hostileUrl + path, maxRetries: 0 })
      try {
        await client.checkout.purchase({
          order: { number: order + path.slice(1), amount: '1.00', currency: 'USD', description: 'Hostile check' },
          success_url: 'https://shop.example/paid',
          cancel_url: 'https://shop.example/cancelled',
        })
        return 'succeeded'
      } catch (error) {
        return error?.name + (error?.status ? ' ' + error.status : '')
      } finally {
        await client.close?.()
      }
    }
    const redirect = await hostile('/redirect', {})
    // The service's answer as an API error (the card gateway's subclass of ApiError) with status 302.
    if (!/Error 302$/.test(redirect)) throw new Error('a 302 gave ' + redirect + ' (expected an API error 302, not followed)')
    const big = await hostile('/big', { maxResponseBytes: 100_000 })
    if (!big.startsWith('ResponseTooLargeError')) throw new Error('a 300 KB body over a 100 KB cap gave ' + big)
    const hang = await hostile('/hang', { timeout: 300 })
    if (!hang.startsWith('TimeoutError')) throw new Error('a service that never answers gave ' + hang)
    await gw.close?.()
    const transport = extra.dispatcher ? 'undici (dispatcher given)' : fetchCalls > 0 ? 'fetch' : 'undici'
    const digest = typeof nodeCrypto().createHash === 'function' ? 'node:crypto' : 'portable (noble)'
    return 'purchase signed and answered, callback verified, tampered one refused, 302 not followed, 300 KB refused, deadline held; transport ' + transport + ', digests ' + digest
  } finally {
    globalThis.fetch = realFetch
  }
}
`,
)
writeFileSync(join(project, 'config.json'), JSON.stringify(config))
writeFileSync(
  join(project, 'main.mjs'),
  `import { readFileSync } from 'node:fs'
import { check } from './check.mjs'
const config = JSON.parse(readFileSync(new URL('./config.json', import.meta.url), 'utf8'))
const variant = (globalThis.process?.argv ?? []).includes('undici') || globalThis.Deno?.args?.includes('undici')
let extra = {}
if (variant) {
  const { Agent } = await import('undici')
  extra = { dispatcher: new Agent() }
}
console.log(await check(config, extra))
if (extra.dispatcher) await extra.dispatcher.close()
`,
)

// ── each runtime ────────────────────────────────────────────────────────────────────────────────

/** The line of a failure's output that names the error (a runtime's last line may be its banner). */
const firstError = (message) =>
  message
    .split('\n')
    .find((line) => /Error\b/.test(line))
    ?.trim() ?? message.split('\n').slice(-1)[0]

const results = []
function report(runtime, status, detail) {
  results.push({ runtime, status })
  console.log(`${status.padEnd(4)} ${runtime}: ${detail}`)
}

/** Runs one runtime: SKIP when its tool cannot be installed or started, FAIL when the program fails. */
async function onRuntime(name, label, start) {
  if (!wanted(name)) return
  let bin
  try {
    bin = await toolInstalls[name]
  } catch (error) {
    report(label, 'SKIP', `could not install ${tools[name]} from the npm registry: ${error.message.split('\n')[0]}`)
    return
  }
  await start(bin)
}

async function startable(bin, args, label) {
  try {
    return (await run(bin, args, project, { timeout: 30_000 })).trim().split('\n')[0]
  } catch (error) {
    report(label, 'SKIP', `installed but cannot start here: ${error.message.split('\n').slice(-1)[0]}`)
    return undefined
  }
}

async function scriptRuntime(name, label, versionArgs, runArgs) {
  await onRuntime(name, label, async (bin) => {
    const version = await startable(bin, versionArgs, label)
    if (version === undefined) return
    try {
      const out = (await run(bin, [...runArgs, 'main.mjs'], project)).trim()
      report(label, 'PASS', `${version}: ${out}`)
    } catch (error) {
      report(label, 'FAIL', `${version}: ${error.message}`)
      return
    }
    try {
      const out = (await run(bin, [...runArgs, 'main.mjs', 'undici'], project)).trim()
      console.log(`     ${label} on undici (informational): ${out}`)
    } catch (error) {
      console.log(`     ${label} on undici (informational, not used by default): fails, ${firstError(error.message)}`)
    }
  })
}

await scriptRuntime('bun', 'Bun', ['--version'], ['run'])
await scriptRuntime('deno', 'Deno', ['--version'], ['run', '--allow-all', '--node-modules-dir=manual'])

// The Hono recipe (examples/callbacks/hono-bun.ts) on Bun.
await onRuntime('bun', 'Hono recipe on Bun', async (bin) => {
  const label = 'Hono recipe on Bun'
  try {
    const out = JSON.parse((await run(bin, ['run', 'bun-recipe.ts'], project)).trim().split('\n').pop())
    const problems = judge(out.answers)
    const ran = out.runs.includes('sale/success') && out.runs.includes('CAPTURE/SETTLED/lookup')
    if (problems || !ran)
      report(label, 'FAIL', `${problems || 'answers right'}; onEvent ran for ${out.runs.join(', ')}`)
    else
      report(
        label,
        'PASS',
        `sale and S2S capture 200 and run (${out.runs.join(', ')}), body read first 500 body_already_parsed, tampered 400 hash_mismatch`,
      )
  } catch (error) {
    report(label, 'FAIL', error.message)
  }
})

// workerd: the worker is bundled (esbuild, as wrangler does) and served on a loopback port; a request
// to it runs the program in the Workers runtime, with the nodejs_compat flag (node:crypto there is
// partial: the SDK's digest provider decides what it uses).
await onRuntime('workerd', 'Workers (workerd)', async (bin) => {
  const label = 'Workers (workerd)'
  const version = await startable(bin, ['--version'], label)
  if (version === undefined) return
  writeFileSync(
    join(project, 'worker.mjs'),
    `import { check } from './check.mjs'
import config from './config.json'
export default {
  async fetch() {
    try {
      return new Response(await check(config))
    } catch (error) {
      return new Response(String(error?.stack ?? error), { status: 500 })
    }
  },
}
`,
  )
  try {
    await bundleWorker(project, 'worker.mjs', 'worker.bundle.mjs')
  } catch (error) {
    report(label, 'FAIL', `the worker did not bundle: ${error.message}`)
    return
  }
  const port = await freePort()
  writeFileSync(
    join(project, 'worker.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["public", "private", "local"], tlsOptions = (trustBrowserCas = true))),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker.bundle.mjs") ],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ["nodejs_compat"],
  globalOutbound = "internet",
);
`,
  )
  const server = spawn(bin, ['serve', 'worker.capnp'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  server.stdout.on('data', (chunk) => (log += chunk))
  server.stderr.on('data', (chunk) => (log += chunk))
  const exited = once(server, 'exit').then(() => 'exited')
  try {
    let answer
    for (let tries = 0; tries < 100 && answer === undefined; tries++) {
      const outcome = await Promise.race([
        exited,
        fetch(`http://127.0.0.1:${port}/`).then(
          (res) => res,
          () => undefined,
        ),
      ])
      if (outcome === 'exited') {
        report(label, 'SKIP', `workerd exited before serving (cannot run here): ${log.trim().split('\n').slice(-1)[0]}`)
        return
      }
      if (outcome) answer = outcome
      else await new Promise((resolve) => setTimeout(resolve, 100)) // polling a port coming up: no event to wait on
    }
    if (answer === undefined) {
      report(label, 'SKIP', `workerd did not listen within 10 s: ${log.trim().split('\n').slice(-1)[0]}`)
      return
    }
    const text = await answer.text()
    if (answer.status === 200) report(label, 'PASS', `${version}: ${text}`)
    else report(label, 'FAIL', `${version}: ${text.split('\n').slice(0, 4).join(' | ')}`)
  } finally {
    server.kill()
  }
})

// The Worker recipe (examples/callbacks/worker.ts) in workerd: bundled as wrangler would, its
// PAYWIRE_CARD_* given as text bindings, the callbacks posted to it over HTTP. The wrapper plays a
// middleware that reads the body first on /read-first; everything else is the recipe's own fetch.
await onRuntime('workerd', 'Worker recipe (workerd)', async (bin) => {
  const label = 'Worker recipe (workerd)'
  writeFileSync(
    join(project, 'worker-recipe-entry.mjs'),
    `import worker from './worker.ts'
export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === '/read-first') await request.text()
    return worker.fetch(request, env, ctx)
  },
}
`,
  )
  try {
    await bundleWorker(project, 'worker-recipe-entry.mjs', 'worker-recipe.bundle.mjs')
  } catch (error) {
    report(label, 'FAIL', `the recipe did not bundle: ${error.message}`)
    return
  }
  const port = await freePort()
  const bindings = Object.entries(recipeEnv)
    .map(([name, value]) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(value)})`)
    .join(', ')
  writeFileSync(
    join(project, 'worker-recipe.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "internet", network = (allow = ["public", "private", "local"], tlsOptions = (trustBrowserCas = true))),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker-recipe.bundle.mjs") ],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = ["nodejs_compat"],
  bindings = [ ${bindings} ],
  globalOutbound = "internet",
);
`,
  )
  const server = spawn(bin, ['serve', 'worker-recipe.capnp'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  server.stdout.on('data', (chunk) => (log += chunk))
  server.stderr.on('data', (chunk) => (log += chunk))
  const post = async (path, body) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    })
    return `${res.status} ${await res.text()}`
  }
  try {
    let up = false
    for (let tries = 0; tries < 100 && !up; tries++) {
      up = await fetch(`http://127.0.0.1:${port}/`).then(
        () => true,
        () => false,
      )
      if (!up) await new Promise((resolve) => setTimeout(resolve, 100)) // polling a port coming up
    }
    if (!up) {
      report(label, 'SKIP', `workerd did not listen within 10 s: ${log.trim().split('\n').slice(-1)[0]}`)
      return
    }
    const answers = {
      sale: await post('/callbacks/card', recipe.sale),
      capture: await post('/callbacks/card', recipe.capture),
      readFirst: await post('/read-first', recipe.sale),
      tampered: await post('/callbacks/card', recipe.tampered),
    }
    // onEvent logs each run; the capture's runs after its confirming lookup, inside waitUntil.
    for (let tries = 0; tries < 100 && !/card callback ran CAPTURE SETTLED/.test(log); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100)) // polling the worker's log: no event to wait on
    }
    const problems = judge(answers)
    const ran = /card callback ran sale success/.test(log) && /card callback ran CAPTURE SETTLED/.test(log)
    if (problems || !ran)
      report(
        label,
        'FAIL',
        `${problems || 'answers right'}; ${ran ? '' : 'onEvent did not run for both; '}log: ${log.trim().split('\n').slice(-24).join(' | ')}`,
      )
    else
      report(
        label,
        'PASS',
        'sale and S2S capture 200 and run (waitUntil), body read first 500 body_already_parsed, tampered 400 hash_mismatch',
      )
  } finally {
    server.kill()
  }
})

sim.kill()
hostile.closeAllConnections()
hostile.close()
if (targetHits > 0) report('redirects', 'FAIL', `a redirect was followed ${targetHits} time(s) on some runtime`)
if (!keep) rmSync(work, { recursive: true, force: true })
const failed = results.filter((r) => r.status === 'FAIL').length
console.log(
  `runtimes: ${results.filter((r) => r.status === 'PASS').length} passed, ${failed} failed, ${results.filter((r) => r.status === 'SKIP').length} skipped in ${Math.round((Date.now() - started) / 1000)} s`,
)
process.exit(failed > 0 ? 1 : 0)
