/** What the load target answers, by route: shared by the loopback server and the stub dispatcher. */

/** Route (`METHOD path`) → the bytes answered, built once. */
export const ROUTES = new Map<string, Buffer>(
  Object.entries({
    'POST /post': {
      action: 'GET_TRANS_STATUS',
      result: 'SUCCESS',
      status: 'SETTLED',
      order_id: 'o-1',
      trans_id: 't-1',
    },
    'POST /api/v1/session': { redirect_url: 'https://pay.example/s/1' },
    'GET /api/lookup/banks': [
      { code: '044', name: 'Access Bank' },
      { code: '058', name: 'GTBank' },
      { code: '011', name: 'First Bank' },
    ],
    'POST /api/transactions': {
      transReference: 'TR-1',
      productId: 'P1',
      amount: 10,
      status: 'SUCCESSFUL',
      createdAt: '2024-01-01T00:00:00Z',
    },
  }).map(([route, body]) => [route, Buffer.from(JSON.stringify(body))]),
)

export const NOT_FOUND = Buffer.from('{"error":"not found"}')

/** An S2S action other than the status lookup, answered as the gateway does: naming its action and trans_id. */
function s2sActionAnswer(form: string): Buffer | undefined {
  const fields = new URLSearchParams(form)
  const action = fields.get('action')
  if (action === null || action === 'GET_TRANS_STATUS') return undefined
  const answer = { action, result: 'SUCCESS', status: 'SETTLED', order_id: 'o-1', trans_id: fields.get('trans_id') }
  return Buffer.from(JSON.stringify(answer))
}

/** The answer to `method path?query` (and, for an S2S action, its form `body`): status and body. */
export function answerOf(method: string, url: string, body = ''): { status: number; body: Buffer } {
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  const action = method === 'POST' && path === '/post' && body !== '' ? s2sActionAnswer(body) : undefined
  if (action) return { status: 200, body: action }
  const route = ROUTES.get(`${method} ${path}`)
  return route ? { status: 200, body: route } : { status: 404, body: NOT_FOUND }
}
