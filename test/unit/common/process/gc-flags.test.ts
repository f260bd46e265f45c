// Which V8 GC flags the platform's processes start with: one GC thread on two cores or fewer, unless
// PLATFORM_GC says otherwise (src/common/process/gc-flags.ts has the measurements behind it).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { gcFlags, missingGcFlags } from '../../../../src/common/process/gc-flags'

test('two cores or fewer: garbage collection on one thread; more: V8 decides', () => {
  assert.deepEqual(gcFlags({}, 1), ['--single-threaded-gc'])
  assert.deepEqual(gcFlags({}, 2), ['--single-threaded-gc'])
  assert.deepEqual(gcFlags({}, 3), [])
  assert.deepEqual(gcFlags({ PLATFORM_GC: 'auto' }, 8), [])
})

test('PLATFORM_GC=single or parallel decides instead of the core count', () => {
  assert.deepEqual(gcFlags({ PLATFORM_GC: 'single' }, 16), ['--single-threaded-gc'])
  assert.deepEqual(gcFlags({ PLATFORM_GC: 'parallel' }, 2), [])
})

test('the flags a process lacks: what dist/src/main.js re-executes itself to get', () => {
  assert.deepEqual(missingGcFlags([], ['--single-threaded-gc']), ['--single-threaded-gc'])
  assert.deepEqual(missingGcFlags(['--inspect', '--single-threaded-gc'], ['--single-threaded-gc']), [])
  assert.deepEqual(missingGcFlags(['--inspect'], []), [])
})
