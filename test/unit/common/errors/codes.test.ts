// docs/errors.md is the error table a user reads (the README points at it): every code of
// src/common/errors/codes.ts with its status and title, and what to do about it; and every internal
// code of src/common/errors/internal.ts with its meaning, where it arises and what to do.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { codes } from '../../../../src/common/errors/codes'
import { internalCodes, InternalError, errorMessage } from '../../../../src/common/errors/internal'
import { ROOT } from '../../../helpers/root'

test('docs/errors.md has every code with its status and title, and says what to do', () => {
  const text = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8')
  const rows = [...text.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| ([^|]+) \| ([^|]+) \|$/gm)].map((m) => ({
    code: m[1]!,
    status: Number(m[2]),
    title: m[3]!.trim(),
    todo: m[4]!.trim()
  }))
  assert.deepEqual(
    rows.map(({ code, status, title }) => ({ code, status, title })),
    Object.entries(codes).map(([code, c]) => ({ code, status: c.status, title: c.title }))
  )
  for (const r of rows) assert.ok(r.todo.length > 20, `${r.code}: what to do`)
})

test('docs/errors.md lists every internal code with its meaning, and no code the table lacks', () => {
  const text = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8')
  const rows = [...text.matchAll(/^\| `(IGW_[A-Z_]+)` \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$/gm)].map((m) => ({
    code: m[1]!,
    meaning: m[2]!.trim(),
    where: m[3]!.trim(),
    todo: m[4]!.trim()
  }))
  const documented = new Set(rows.map((r) => r.code))
  const missing = Object.keys(internalCodes).filter((c) => !documented.has(c))
  const unknown = rows.map((r) => r.code).filter((c) => !Object.prototype.hasOwnProperty.call(internalCodes, c))
  assert.deepEqual(missing, [], 'internal codes that docs/errors.md does not document')
  assert.deepEqual(unknown, [], 'codes docs/errors.md documents that src/common/errors/internal.ts does not have')
  assert.deepEqual(
    rows.map(({ code, meaning }) => ({ code, meaning })),
    Object.entries(internalCodes).map(([code, meaning]) => ({ code, meaning })),
    'the rows in the order of the table, each with its meaning'
  )
  for (const r of rows) {
    assert.ok(r.where.length > 20, `${r.code}: where it arises`)
    assert.ok(r.todo.length > 20, `${r.code}: what to do`)
  }
})

test('an InternalError keeps its code and class name, and its data makes the same error again', () => {
  class ExampleError extends InternalError {
    constructor(message: string) {
      super('IGW_CONFIG', message)
    }
  }
  const err = new ExampleError('ENTRY_POINTS.port: must be a port')
  assert.equal(err.code, 'IGW_CONFIG')
  assert.equal(err.name, 'ExampleError')
  assert.equal(String(err), 'ExampleError: ENTRY_POINTS.port: must be a port')
  const data = InternalError.toFailure(err, 'IGW_ASSERTION')
  assert.deepEqual(data, { code: 'IGW_CONFIG', detail: 'ENTRY_POINTS.port: must be a port' })
  assert.deepEqual(structuredClone(data), data)
  const again = InternalError.fromFailure(data, 'thread 1: ')
  assert.equal(again.code, 'IGW_CONFIG')
  assert.equal(again.message, 'thread 1: ENTRY_POINTS.port: must be a port')
  assert.deepEqual(InternalError.toFailure(new Error('foreign'), 'IGW_LISTEN'), {
    code: 'IGW_LISTEN',
    detail: 'foreign'
  })
})

test('errorMessage reads the message of anything thrown', () => {
  assert.equal(errorMessage(new TypeError('not a function')), 'not a function')
  assert.equal(errorMessage({ message: 'an Error of another realm' }), 'an Error of another realm')
  assert.equal(errorMessage('a string'), 'a string')
  assert.equal(errorMessage(42), '42')
  assert.equal(errorMessage(undefined), 'undefined')
  assert.equal(errorMessage(null), 'null')
})
