// A platform killed with SIGKILL leaves its instances' socket directory behind; the next one removes
// the directories whose owner is gone, and only those.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { removeOrphanSocketDirs } from '../../../src/platform/manager'

test('socket directories of dead platforms are removed; live, unknown and other ones stay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'socket-dirs-'))
  const dead = spawnSync(process.execPath, ['-e', '0']).pid // exited: its pid names no process now
  const make = (name: string, owner: string | null): string => {
    const p = join(dir, name)
    mkdirSync(p)
    writeFileSync(join(p, '1.sock'), '')
    if (owner !== null) writeFileSync(join(p, 'owner.pid'), owner)
    return p
  }
  const orphan = make('igw-orphan', String(dead))
  const live = make('igw-live', String(process.pid === 1 ? 2 : 1)) // pid 1 is always alive
  const unknown = make('igw-unknown', null)
  const garbage = make('igw-garbage', 'not a pid')
  const other = make('other-dir', String(dead))
  assert.deepEqual(removeOrphanSocketDirs(dir), [orphan])
  assert.equal(existsSync(orphan), false)
  for (const p of [live, unknown, garbage, other]) assert.equal(existsSync(p), true, p)
})
