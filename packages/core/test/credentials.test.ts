import { RequestValidationError, Secret } from '@paywire/core'
import { readCredentials } from '@paywire/core/engine'
import { describe, expect, it } from 'vitest'

function issuesOf(run: () => unknown) {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(RequestValidationError)
    return (error as RequestValidationError).issues
  }
  throw new Error('expected the credentials to be refused')
}

describe('readCredentials: one check for the credentials of every client', () => {
  it('gives Secrets for strings and keeps a given Secret', () => {
    const given = new Secret('s3cr3t-two')
    const read = readCredentials('Client', { key: 's3cr3t-one', other: given }, { key: 'header', other: 'text' })
    expect(read.key).toBeInstanceOf(Secret)
    expect(read.key.reveal()).toBe('s3cr3t-one')
    expect(read.other).toBe(given)
    expect(JSON.stringify(read)).not.toContain('s3cr3t')
  })

  it('lists every problem at once, naming each option and never quoting a value', () => {
    const issues = issuesOf(() =>
      readCredentials(
        'Client',
        { a: '', b: 'has space-s3cr3t', c: 'line\nbreak-s3cr3t', d: 'tab\tin-text-s3cr3t', e: 42 },
        { a: 'header', b: 'header', c: 'text', d: 'text', e: 'text', f: 'text' },
      ),
    )
    expect(issues).toEqual([
      { path: 'a', message: 'is required: a non-empty string or a Secret' },
      {
        path: 'b',
        message: 'must be visible ASCII characters only (it is sent as a header: no spaces or line breaks)',
      },
      { path: 'c', message: 'must not contain control characters' },
      { path: 'd', message: 'must not contain control characters' },
      { path: 'e', message: 'is required: a non-empty string or a Secret' },
      { path: 'f', message: 'is required: a non-empty string or a Secret' },
    ])
    expect(JSON.stringify(issues)).not.toContain('s3cr3t')
  })

  it('a space is fine in a credential that is only hashed or sent in a body', () => {
    expect(readCredentials('Client', { password: 'correct horse' }, { password: 'text' }).password.reveal()).toBe(
      'correct horse',
    )
  })

  it.each([undefined, null, 'key'])(
    'options of %j are refused like missing credentials, not with a TypeError',
    (options) => {
      expect(issuesOf(() => readCredentials('Client', options, { key: 'header' }))).toEqual([
        { path: 'key', message: 'is required: a non-empty string or a Secret' },
      ])
    },
  )
})
