import { BlockList, isIP } from 'node:net'
import { InternalError } from '../errors/internal'

/**
 * A set of addresses and CIDR blocks (`127.0.0.1`, `10.0.0.0/8`, `::1/128`), matched with Node's own
 * BlockList. An IPv4 address also matches as its IPv4-mapped IPv6 form (`::ffff:127.0.0.1`).
 * Throws on an entry that is neither, naming it.
 */
export function peerMatcher(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList()
  for (const e of entries) {
    const [addr, bits, extra] = e.split('/')
    const family = isIP(addr ?? '')
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits)
    if (
      family === 0 ||
      extra !== undefined ||
      !Number.isInteger(prefix) ||
      prefix < 0 ||
      prefix > (family === 6 ? 128 : 32)
    )
      throw new InternalError('IGW_CONFIG', `'${e}' is not an IP address or CIDR block`)
    list.addSubnet(addr!, prefix, family === 6 ? 'ipv6' : 'ipv4')
  }
  return (address) => {
    const family = isIP(address)
    if (family === 0) return false
    if (family === 6 && address.toLowerCase().startsWith('::ffff:') && isIP(address.slice(7)) === 4)
      return list.check(address.slice(7), 'ipv4')
    return list.check(address, family === 6 ? 'ipv6' : 'ipv4')
  }
}
