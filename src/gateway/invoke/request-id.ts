import { RandomTexts, dashesAt, writeHex } from '../../common/bytes/random-texts'

/** Where a UUID's text has its dashes: 8-4-4-4-12 hex digits. */
const UUID_DASHES = dashesAt(4, 6, 8, 10)

const uuids = new RandomTexts(36, 16, (text, at, random, r) => {
  random[r + 6] = (random[r + 6]! & 0x0f) | 0x40 // version 4
  random[r + 8] = (random[r + 8]! & 0x3f) | 0x80 // the RFC 9562 variant
  return writeHex(text, at, random, r, 16, UUID_DASHES)
})

/**
 * The X-PLATFORM-Request-ID of a request that sent none: a random (version 4) UUID, as
 * crypto.randomUUID makes, from a batch (RandomTexts) rather than twenty-odd joined pieces.
 */
export function newRequestId(): string {
  return uuids.next()
}
