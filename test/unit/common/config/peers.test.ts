// Trusted peers (ENTRY_POINTS…trust.trustedPeers): which client addresses may send identity headers.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { peerMatcher } from '../../../../src/common/config/peers'

test('IPv4 addresses and blocks, with their bounds', () => {
  const m = peerMatcher(['127.0.0.1', '10.0.0.0/8', '192.168.1.0/24'])
  assert.equal(m('127.0.0.1'), true)
  assert.equal(m('127.0.0.2'), false, 'a plain address is a /32')
  assert.equal(m('10.255.255.255'), true)
  assert.equal(m('11.0.0.0'), false)
  assert.equal(m('192.168.1.255'), true)
  assert.equal(m('192.168.2.0'), false)
  assert.equal(peerMatcher(['0.0.0.0/0'])('203.0.113.9'), true, '/0 is every IPv4 address')
})

test('IPv6 addresses and blocks; an IPv4 entry matches the IPv4-mapped form and only that', () => {
  const m = peerMatcher(['::1', 'fd00::/8', '127.0.0.1'])
  assert.equal(m('::1'), true)
  assert.equal(m('::2'), false)
  assert.equal(m('fd12:3456::1'), true)
  assert.equal(m('fe80::1'), false)
  assert.equal(m('::ffff:127.0.0.1'), true)
  assert.equal(m('::FFFF:127.0.0.1'), true, 'the prefix in capitals')
  assert.equal(m('::ffff:127.0.0.2'), false)
  assert.equal(peerMatcher(['::1'])('127.0.0.1'), false, 'an IPv6 entry does not match an IPv4 address')
})

test('what is not an address never matches', () => {
  const m = peerMatcher(['0.0.0.0/0', '::/0'])
  for (const a of ['', 'localhost', '127.0.0.1:80', '1.2.3', '::ffff:1.2.3'])
    assert.equal(m(a), false, JSON.stringify(a))
})

test('an invalid entry is refused, naming it', () => {
  for (const e of ['localhost', '10.0.0.0/33', '::1/129', '10.0.0.0/-1', '10.0.0.0/8/8', '10.0.0.0/x', '1.2.3'])
    assert.throws(
      () => peerMatcher([e]),
      new RegExp(`'${e.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}' is not an IP address or CIDR block`),
      e
    )
  assert.doesNotThrow(() => peerMatcher(['10.0.0.0/32', '::/128']))
})
