// docs/errors.md is the error table a user reads (the README points at it): every code of
// src/common/errors/codes.ts with its status and title, and what to do about it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { codes } from '../../../../src/common/errors/codes'
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
