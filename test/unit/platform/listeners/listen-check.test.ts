// The host a local client uses for a listener (the bench command's URL, `main.js --ready`'s probe).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { reachableHost } from '../../../../src/platform/listeners/listen-check'

test('wildcards are reached on loopback; IPv6 in brackets once; names and IPv4 as they are', () => {
  assert.equal(reachableHost('0.0.0.0'), '127.0.0.1')
  assert.equal(reachableHost(''), '127.0.0.1')
  assert.equal(reachableHost('::'), '[::1]')
  assert.equal(reachableHost('::1'), '[::1]')
  assert.equal(reachableHost('[::1]'), '[::1]')
  assert.equal(reachableHost('10.0.0.5'), '10.0.0.5')
  assert.equal(reachableHost('gateway.local'), 'gateway.local')
})
