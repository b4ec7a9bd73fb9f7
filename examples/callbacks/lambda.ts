/**
 * Card callbacks on AWS Lambda behind a function URL: the event's body is the raw body (base64 when
 * `isBase64Encoded`), given to `handler.handle()`. Lambda freezes the environment once the function
 * returns and has no `waitUntil` for a buffered answer, so the handler waits for the runs it started
 * up to a short budget (well under the gateway's time-out); a longer run resumes when that
 * environment is next invoked, or the scheduled `recover` takes it after its lease (at least once:
 * make `onEvent` idempotent). A body-parsing middleware (middy's urlencoded parser) must not run first.
 *
 * Run: npx tsx examples/callbacks/lambda.ts (calls the handler with function-URL events, no AWS)
 */
import type { CallbackHandler } from '@paywire/card-gateway'
import type { LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda'
import { runIfMain } from '../shared/run.js'
import { driveRecipe } from './drive.js'

/** How long an invocation waits for the runs it started before it returns (the answer waits too). */
const RUN_BUDGET_MS = 2_000

/** The function's exports: `export const { handler, recover } = callbackLambda(callbacks)`. */
export function callbackLambda(callbacks: CallbackHandler) {
  return {
    async handler(event: LambdaFunctionURLEvent): Promise<LambdaFunctionURLResult> {
      const body = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64') : (event.body ?? '')
      const runs: Promise<unknown>[] = []
      const a = await callbacks.handle(body, { waitUntil: (run) => runs.push(run) }) // recipe: AWS Lambda function URL
      let timer: NodeJS.Timeout | undefined
      const budget = new Promise((resolve) => {
        timer = setTimeout(resolve, RUN_BUDGET_MS)
      })
      await Promise.race([Promise.allSettled(runs), budget])
      clearTimeout(timer)
      return { statusCode: a.status, headers: { ...a.headers }, body: a.body }
    },
    // An EventBridge schedule (every minute): runs what frozen or ended invocations left.
    recover: () => callbacks.recover(),
  }
}

/** A function-URL event as Lambda builds it for a form POST. */
function urlEvent(body: string | Record<string, string>): LambdaFunctionURLEvent {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/',
    rawQueryString: '',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    isBase64Encoded: typeof body === 'string',
    body: (typeof body === 'string' ? Buffer.from(body).toString('base64') : body) as string,
    requestContext: {
      accountId: 'anonymous',
      apiId: 'callbacks',
      domainName: 'callbacks.lambda-url.eu-west-1.on.aws',
      domainPrefix: 'callbacks',
      http: { method: 'POST', path: '/', protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'gateway' },
      requestId: 'r-1',
      routeKey: '$default',
      stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000',
      timeEpoch: 0,
    },
  }
}

export async function main(): Promise<void> {
  await driveRecipe('lambda', async (callbacks) => {
    const { handler } = callbackLambda(callbacks)
    return {
      deliver: async (body, options) => {
        // Body read first: a middleware (middy's urlencoded body parser) left an object in event.body.
        const event = urlEvent(options?.readFirst ? Object.fromEntries(new URLSearchParams(body)) : body)
        const result = (await handler(event)) as { statusCode: number; body: string }
        return { status: result.statusCode, body: result.body }
      },
    }
  })
}

runIfMain(import.meta.url, main)
