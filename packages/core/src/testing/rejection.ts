/** Awaits a call that must fail and gives back what it rejected with, so a test can assert on it. */
export async function rejection(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the call to fail, and it succeeded')
}
