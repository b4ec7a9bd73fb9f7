import { RequestValidationError } from '@paywire/core'
import { checkBaseUrl, expandPath, pathSegment } from '@paywire/core/engine'
import { describe, expect, it } from 'vitest'

describe('base URL check at construction', () => {
  it.each([
    'https://pay.example.com',
    'https://pay.example.com/api/',
    'http://localhost:8080',
    'http://127.0.0.1:3000',
    'http://127.255.0.9',
    'http://[::1]:8080',
  ])('accepts %s', (url) => {
    expect(checkBaseUrl('baseUrl', url, 'client')).toBe(url.replace(/\/+$/, ''))
  })

  it.each([
    ['http://pay.example.com', /https: .*loopback/],
    ['http://10.0.0.5', /https:/],
    ['http://128.0.0.1', /https:/],
    ['http://localhost.example.com', /https:/],
    ['http://api.localhost', /https:/],
    ['ftp://pay.example.com', /must use https:/],
    ['not a url', /not a valid absolute URL/],
    ['', /non-empty/],
    ['https://user:pass@pay.example.com', /credentials/],
    ['https://pay.example.com/?key=1', /query string/],
  ])('refuses %s', (url, message) => {
    const error = (() => {
      try {
        checkBaseUrl('checkoutUrl', url, 'client')
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(RequestValidationError)
    expect((error as RequestValidationError).issues[0]?.path).toBe('checkoutUrl')
    expect((error as RequestValidationError).message).toMatch(message)
    expect((error as RequestValidationError).message).not.toContain('pass@')
  })
})

describe('path variables', () => {
  it.each([
    ['abc 1', 'abc%201'],
    ['a/b', 'a%2Fb'],
    ['?x=1#y', '%3Fx%3D1%23y'],
    ['é', '%C3%A9'],
    [42, '42'],
  ])('encodes %s so it cannot change the route', (value, expected) => {
    expect(pathSegment(value)).toBe(expected)
  })
})

describe('path variables that would change the route', () => {
  it.each(['', '.', '..', '%2e%2E', '%2E', 'a\ud800b'])('refuses %j before sending', (value) => {
    expect(() => pathSegment(value, 'transReference', 'transactions.get')).toThrow(RequestValidationError)
    try {
      pathSegment(value, 'transReference', 'transactions.get')
    } catch (e) {
      expect((e as RequestValidationError).issues[0]?.path).toBe('transReference')
      expect((e as RequestValidationError).operation).toBe('transactions.get')
    }
  })
})

describe('expandPath: the one path templating of every package', () => {
  it('encodes each variable so caller data cannot change the route', () => {
    expect(expandPath('/api/catalog/{id}', { id: 'a/b?c#d' }, 'catalog.get')).toBe('/api/catalog/a%2Fb%3Fc%23d')
    expect(expandPath('/api/x/{a}/y/{b}', { a: 1, b: 'two words' })).toBe('/api/x/1/y/two%20words')
  })

  it.each([
    ['..', 'must not be empty, "." or ".." (it would change the route)'],
    ['%2e%2E', 'must not be empty, "." or ".." (it would change the route)'],
    [undefined, 'must not be empty, "." or ".." (it would change the route)'],
    ['\ud800', 'must be well-formed Unicode (it holds a lone surrogate)'],
  ])('refuses %j, naming the variable and the operation', (value, message) => {
    try {
      expandPath('/api/transactions/{transReference}', { transReference: value }, 'transactions.get')
      throw new Error('expected a refusal')
    } catch (error) {
      expect(error).toBeInstanceOf(RequestValidationError)
      expect(error).toMatchObject({ operation: 'transactions.get', issues: [{ path: 'transReference', message }] })
    }
  })
})
