/**
 * Issue 40's newcomer, for scripts/check-newcomer.mjs: a Hono merchant built from the tarballs under
 * strict NodeNext (`skipLibCheck: false`), its callback handler mounted as docs/callbacks.md says,
 * driven against `npx paywire sim --s2s-callbacks` with a password rotation to rehearse. It must:
 * receive an S2S capture callback (run once its state is confirmed by a lookup), answer a body read
 * first with `500 body_already_parsed` and a tampered one with a visible `400 hash_mismatch` (a warn
 * line at `PAYWIRE_LOG=warn`), then, the simulator switched to the new password and the merchant
 * redeployed, complete purchase → hosted page → redirect back → verified callback.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

/** The merchant as a newcomer writes it from docs/callbacks.md (its Hono row) and the getting-started guide. */
const SERVER_TS = `import { serve } from '@hono/node-server'
import { CardGateway, type CallbackEvent } from '@paywire/card-gateway'
import { Hono } from 'hono'

const env = process.env
const list = (value: string | undefined) => (value ? value.split(',') : undefined)
const callbackPasswords = list(env['CARD_CALLBACK_PASSWORDS'])
const gw = new CardGateway({
  checkoutUrl: env['PAYWIRE_CARD_CHECKOUT_URL'] ?? '',
  s2sUrl: env['PAYWIRE_CARD_S2S_URL'] ?? '',
  merchantKey: env['PAYWIRE_CARD_MERCHANT_KEY'] ?? '',
  clientKey: env['PAYWIRE_CARD_CLIENT_KEY'] ?? '',
  password: env['PAYWIRE_CARD_PASSWORD'] ?? '',
  ...(callbackPasswords ? { callbackPasswords } : {}),
  s2sCallbackFields: list(env['CARD_S2S_CALLBACK_FIELDS']) ?? [],
  allowPrivateRedirectUrls: true, // local development: the shop is on this machine
})
const say = (line: Record<string, unknown>) => console.log(JSON.stringify(line))
const handler = gw.callbacks.handler({
  onEvent: (event: CallbackEvent) =>
    say({ event: event.type ?? event.action, status: event.status, order: event.order_number ?? event.order_id, confirmedBy: event.confirmedBy, passwordIndex: event.passwordIndex }),
  onRefused: (refusal) => say({ refused: refusal.reason, answered: refusal.status }),
  recoverEveryMs: 0,
})
const port = Number(env['PORT'])
const app = new Hono()
app.post('/callbacks/card', (c) => handler.fetch(c.req.raw))
app.post('/callbacks/read-first', async (c) => {
  await c.req.text() // a body-reading middleware
  return handler.fetch(c.req.raw)
})
app.post('/buy/:order', async (c) => {
  const order = c.req.param('order')
  const { redirect_url } = await gw.checkout.purchase({
    order: { number: order, amount: '15.00', currency: 'EUR', description: 'Newcomer shop' },
    success_url: \`http://127.0.0.1:\${port}/paid?order=\${order}\`,
    cancel_url: \`http://127.0.0.1:\${port}/cancelled?order=\${order}\`,
  })
  return c.json({ redirect_url })
})
app.post('/capture/:order', async (c) => {
  const { trans_id } = await gw.s2s.getTransStatusByOrder({ order_id: c.req.param('order') })
  return c.json(await gw.s2s.capture({ trans_id: trans_id ?? '' }))
})
// The way back proves nothing: the page says so and waits for the callback or a lookup.
app.get('/paid', (c) => c.text(\`checking your payment \${c.req.query('order') ?? ''}\`))
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => say({ listening: port }))
process.once('SIGTERM', () => {
  server.close()
  void handler.close().then(() => gw.close())
})
`

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    skipLibCheck: false,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    outDir: 'dist',
    types: ['node'],
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
  },
  files: ['server.ts'],
}

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })

/** The merchant process: its JSON lines, a wait for one, and its stderr. */
function startMerchant(dir, env) {
  const child = spawn(process.execPath, ['dist/server.js'], { cwd: dir, env: { ...process.env, ...env } })
  const lines = []
  const waiters = []
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  createInterface({ input: child.stdout }).on('line', (line) => {
    let value
    try {
      value = JSON.parse(line)
    } catch {
      return
    }
    lines.push(value)
    for (const w of [...waiters]) {
      if (!w.test(value)) continue
      waiters.splice(waiters.indexOf(w), 1)
      w.resolve(value)
    }
  })
  const exited = once(child, 'exit')
  return {
    lines,
    stderr: () => stderr,
    waitFor(test, what, ms = 10_000) {
      const seen = lines.find(test)
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `the merchant never logged ${what}; it logged ${JSON.stringify(lines)}; stderr: ${stderr.slice(-800)}`,
              ),
            ),
          ms,
        )
        waiters.push({
          test,
          resolve: (v) => {
            clearTimeout(timer)
            resolve(v)
          },
        })
      })
    },
    async stop() {
      child.kill('SIGTERM')
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))])
      child.kill('SIGKILL')
    },
  }
}

/**
 * The whole run; resolves with a one-line summary or throws naming the broken promise.
 * `deps`: { work, tarball(name), startSim(extra, env), must, broken }.
 */
export async function honoMerchant({ work, tarball, startSim, must, broken }) {
  const dir = join(work, 'hono-shop')
  mkdirSync(dir)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'hono-shop', private: true, type: 'module' }))
  writeFileSync(join(dir, 'server.ts'), SERVER_TS)
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2))
  const merchantPort = await freePort()
  const passwords = { CARD_PASSWORD_A: 'newcomer-password-a', CARD_PASSWORD_B: 'newcomer-password-b' }
  const [, sim] = await Promise.all([
    must(
      'npm',
      [
        'install',
        tarball('core'),
        tarball('card-gateway'),
        'hono@^4.13.19',
        '@hono/node-server@^2.1.9',
        'typescript@5.9.3',
        '@types/node@20',
        '--loglevel=error',
      ],
      dir,
      { timeout: 120_000 },
    ).then(() => must(join(dir, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], dir)),
    startSim(
      [
        '--s2s-callbacks',
        '--password-env',
        'CARD_PASSWORD_A',
        '--password-env',
        'CARD_PASSWORD_B',
        '--callback-url',
        `http://127.0.0.1:${merchantPort}/callbacks/card`,
      ],
      passwords,
    ),
  ]).catch((error) => {
    throw broken(
      'strict NodeNext build of the Hono merchant (skipLibCheck: false)',
      `${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`,
    )
  })
  const card = sim.description.card
  const control = (path, body) =>
    fetch(`${sim.description.controlUrl}${path}`, {
      method: body ? 'POST' : 'GET',
      body: body && JSON.stringify(body),
    }).then((r) => r.json())
  const envFor = (password, callbackPasswords) => ({
    PORT: String(merchantPort),
    PAYWIRE_LOG: 'warn',
    PAYWIRE_CARD_CHECKOUT_URL: card.checkoutUrl,
    PAYWIRE_CARD_S2S_URL: card.s2sUrl,
    PAYWIRE_CARD_MERCHANT_KEY: card.merchantKey,
    PAYWIRE_CARD_CLIENT_KEY: card.clientKey,
    PAYWIRE_CARD_PASSWORD: password,
    ...(callbackPasswords ? { CARD_CALLBACK_PASSWORDS: callbackPasswords.join(',') } : {}),
    CARD_S2S_CALLBACK_FIELDS: card.s2sCallbackFields.join(','),
  })
  const shop = `http://127.0.0.1:${merchantPort}`
  const postForm = (path, body) =>
    fetch(`${shop}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    }).then(async (r) => `${r.status} ${await r.text()}`)
  /** purchase on the merchant → the hosted page (a card) → the 303 back → the merchant's page. */
  const buyAndReturn = async (merchant, order) => {
    const { redirect_url } = await fetch(`${shop}/buy/${order}`, { method: 'POST' }).then((r) => r.json())
    const page = await fetch(redirect_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'expiry=01%2F2038',
      redirect: 'manual',
    })
    const back = page.headers.get('location')
    if (page.status !== 303 || back !== `${shop}/paid?order=${order}`)
      throw broken(
        'the way back (item 6)',
        `the hosted page answered ${page.status} to ${back}, not a 303 to the success_url as sent`,
      )
    const landing = await fetch(back).then((r) => r.text())
    if (!landing.startsWith('checking your payment'))
      throw broken('the way back (item 6)', `the merchant's page said ${landing}`)
    return merchant.waitFor((l) => l.event === 'sale' && l.order === order, `the sale callback of ${order}`)
  }

  // Before the rotation: the gateway signs with A, the merchant lists A then B.
  await control('/card/password', { env: 'CARD_PASSWORD_A' })
  let merchant = startMerchant(
    dir,
    envFor(passwords.CARD_PASSWORD_A, [passwords.CARD_PASSWORD_A, passwords.CARD_PASSWORD_B]),
  )
  try {
    await merchant.waitFor((l) => l.listening, 'that it listens')
    const first = `hono-${Date.now()}`
    await buyAndReturn(merchant, first)
    await fetch(`${shop}/capture/${first}`, { method: 'POST' })
    const captured = await merchant.waitFor((l) => l.event === 'CAPTURE', 'the S2S capture callback')
    if (captured.status !== 'SETTLED' || captured.confirmedBy !== 'lookup')
      throw broken(
        'S2S capture callback (item 5)',
        `onEvent got ${JSON.stringify(captured)}, not SETTLED confirmed by lookup`,
      )
    const listed = await control('/callbacks')
    const sale = listed.find((entry) => entry.fields.order_number === first && entry.fields.type === 'sale')?.body
    const readFirst = await postForm('/callbacks/read-first', sale)
    if (!readFirst.startsWith('500 body_already_parsed'))
      throw broken('a body read first (item 2)', `answered ${readFirst.slice(0, 120)}`)
    const tampered = await postForm('/callbacks/card', sale.replace('order_amount=15.00', 'order_amount=1.00'))
    if (tampered !== '400 hash_mismatch') throw broken('a tampered body (item 3)', `answered ${tampered}`)
    await merchant.waitFor((l) => l.refused === 'hash_mismatch', 'onRefused for the tampered body')
    // stderr is another pipe than the onRefused line's stdout: give it a moment to arrive.
    for (let i = 0; i < 40 && !/paywire callback refused: 400 hash_mismatch/.test(merchant.stderr()); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50)) // polling a pipe: no event says "this line arrived"
    }
    if (!/paywire callback refused: 400 hash_mismatch/.test(merchant.stderr()))
      throw broken(
        'a visible hash_mismatch (item 3)',
        `no warn line at PAYWIRE_LOG=warn; stderr: ${merchant.stderr().slice(-400)}`,
      )

    // The rotation: the gateway switches to B, the merchant redeploys with B first.
    await control('/card/password', { env: 'CARD_PASSWORD_B' })
    await merchant.stop()
    merchant = startMerchant(
      dir,
      envFor(passwords.CARD_PASSWORD_B, [passwords.CARD_PASSWORD_B, passwords.CARD_PASSWORD_A]),
    )
    await merchant.waitFor((l) => l.listening, 'that it listens after the redeploy')
    const second = `hono-${Date.now()}-b`
    const paid = await buyAndReturn(merchant, second)
    if (paid.passwordIndex !== undefined)
      throw broken(
        'rotation (item 4)',
        `the sale signed with the new password verified with passwordIndex ${paid.passwordIndex}`,
      )
    return `tsc NodeNext strict, skipLibCheck false; S2S capture confirmed by lookup; body read first 500; tampered 400 + warn line; after the rotation purchase → hosted page → 303 back → verified sale`
  } finally {
    await merchant.stop()
    sim.stop()
  }
}
