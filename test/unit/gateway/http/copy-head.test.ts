// The client's address as the gateway reads it from uWS's binary form (src/gateway/http/copy-head.ts), against
// node:net's own formatting; the texts it keeps for IPv4 addresses stay right when the store is emptied.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isIPv6 } from 'node:net'
import fc from 'fast-check'
import { remoteAddress } from '../../../../src/gateway/http/copy-head'

/** A stand-in for uWS's HttpResponse with the two address methods, giving fresh buffers as uWS does. */
function response(
  bytes: number[],
  text: string
): { getRemoteAddress(): ArrayBuffer; getRemoteAddressAsText(): ArrayBuffer } {
  return {
    getRemoteAddress: () => new Uint8Array(bytes).buffer,
    getRemoteAddressAsText: () => new Uint8Array(Buffer.from(text)).buffer
  }
}

const octets = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 })

test('IPv4 and IPv4-mapped IPv6 addresses read as dotted quads', () => {
  fc.assert(
    fc.property(octets, (o) => {
      const dotted = o.join('.')
      assert.equal(remoteAddress(response(o, 'unused')), dotted)
      assert.equal(remoteAddress(response([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...o], 'unused')), dotted)
    }),
    { numRuns: 2000 }
  )
})

test('the texts kept for IPv4 addresses stay right past the size of the store, and when it is emptied', () => {
  for (let round = 0; round < 2; round++) {
    for (let n = 0; n < 10_000; n++) {
      const o = [10, (n >> 16) & 255, (n >> 8) & 255, n & 255]
      assert.equal(remoteAddress(response(o, 'unused')), o.join('.'))
    }
  }
})

test('other IPv6 addresses are uWS text form', () => {
  const v6 = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
  assert.equal(remoteAddress(response(v6, '2001:db8::1')), '2001:db8::1')
  assert.ok(isIPv6(remoteAddress(response(v6, '2001:db8::1'))))
  // Mapped only with ::ffff: — a 16-byte address with other bytes before it is not IPv4.
  const notMapped = [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 127, 0, 0, 1]
  assert.equal(remoteAddress(response(notMapped, '::1:ffff:7f00:1')), '::1:ffff:7f00:1')
})
