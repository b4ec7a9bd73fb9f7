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

/** The answer to `method path?query`: status and body. */
export function answerOf(method: string, url: string): { status: number; body: Buffer } {
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  const body = ROUTES.get(`${method} ${path}`)
  return body ? { status: 200, body } : { status: 404, body: NOT_FOUND }
}
