// Client certificates as identity (a listener's tls.clientCertificates): what a verified peer
// certificate names, and whether it names one of the configured trusted subjects or SANs.
// docs/security.md, "Client certificates".
import { X509Certificate } from 'node:crypto'
import type { HttpResponse } from 'uWebSockets.js'
import type { PeerCertificate } from '../invoke/interfaces'
import type { ClientCertificates } from '../../common/config/config'

/** What a certificate name in the config matches: one SAN, or every listed subject attribute. */
export type CertificateMatcher = (peer: PeerCertificate) => boolean

const SAN_KINDS = ['DNS:', 'URI:', 'IP Address:', 'email:']

/** A matcher for the config's names (tls.clientCertificates.trusted, EDGE.auth.certificates[].match). */
export function certificateMatcher(names: readonly string[]): CertificateMatcher {
  const tests = names.map((name): CertificateMatcher => {
    if (SAN_KINDS.some((k) => name.startsWith(k))) {
      // DNS names compare without case (RFC 4343); the others as written.
      const dns = name.startsWith('DNS:')
      const wanted = dns ? name.toLowerCase() : name
      return (peer) => peer.altNames.some((n) => (dns ? n.toLowerCase() : n) === wanted)
    }
    const parts = name.split(',').map((p) => p.trim())
    return (peer) => parts.every((p) => peer.attributes.has(p))
  })
  return (peer) => tests.some((t) => t(peer))
}

/** The certificate's names; null when the text is not a certificate. */
export function parsePeerCertificate(pem: string): PeerCertificate | null {
  let cert: X509Certificate
  try {
    cert = new X509Certificate(pem)
  } catch {
    return null
  }
  const attributes = cert.subject.split('\n').filter((a) => a !== '')
  return {
    // RFC 4514 order (the last RDN first), as nginx's $ssl_client_s_dn and Java's X500Principal write it.
    subject: [...attributes].reverse().join(','),
    attributes: new Set(attributes),
    altNames: splitAltNames(cert.subjectAltName ?? '')
  }
}

/**
 * Node writes the SANs as `DNS:a, URI:b`, quoting (JSON) an entry whose value holds a comma or a
 * quote. An entry is split off at each `, ` that starts a new `KIND:`.
 */
function splitAltNames(text: string): string[] {
  if (text === '') return []
  const names: string[] = []
  for (const raw of text.split(/, (?=(?:DNS|URI|IP Address|email|DirName|othername|Registered ID):)/)) {
    const colon = raw.indexOf(':')
    const value = raw.slice(colon + 1)
    if (value.startsWith('"')) {
      try {
        names.push(raw.slice(0, colon + 1) + (JSON.parse(value) as string))
        continue
      } catch {
        // not JSON after all: kept as written
      }
    }
    names.push(raw)
  }
  return names
}

/**
 * The peer certificates of one listener, parsed once each: a client sends the same certificate on
 * every request of its connection and of its next ones, and uWS gives it to JavaScript per request
 * (as PEM text), never per connection. Bounded: cleared whole when full.
 */
export class PeerCertificates {
  private readonly parsed = new Map<string, PeerCertificate | null>()

  constructor(private readonly limit = 1024) {}

  /** The certificate of a PEM text ('': none sent); null when none was sent. */
  of(pem: string): PeerCertificate | null {
    if (pem === '') return null
    let peer = this.parsed.get(pem)
    if (peer === undefined) {
      if (this.parsed.size >= this.limit) this.parsed.clear()
      peer = parsePeerCertificate(pem)
      this.parsed.set(pem, peer)
    }
    return peer
  }
}

/**
 * A uWS listener's client certificates (tls.clientCertificates), read once per call: whether one is
 * required, and whether one makes its peer trusted to send identity headers.
 */
export class ClientCertificateReader {
  readonly requires: boolean
  private readonly named: CertificateMatcher
  private readonly peers = new PeerCertificates()

  constructor(config: ClientCertificates) {
    this.requires = config.mode === 'require'
    this.named = certificateMatcher(config.trusted)
  }

  /** The call's verified certificate; null when none was sent. Only during the request's callback. */
  read(res: HttpResponse): PeerCertificate | null {
    return this.peers.of(peerPem(res))
  }

  /** Whether the certificate names one of tls.clientCertificates.trusted. */
  trusts(peer: PeerCertificate): boolean {
    return this.named(peer)
  }
}

/** A uWS response with the 20.5x builds' `getX509Certificate` (the peer's PEM; '' without one). */
type CertifiedResponse = HttpResponse & { getX509Certificate(): string | ArrayBuffer }

/**
 * The peer's certificate as PEM text ('' when none was sent), read from uWS during the request's
 * callback. uWS has verified it against the listener's CAs in the handshake: one that does not chain
 * to them ends the handshake. Only on a build with `getX509Certificate` (http/uws-support.ts).
 */
function peerPem(res: HttpResponse): string {
  const pem = (res as CertifiedResponse).getX509Certificate()
  return typeof pem === 'string' ? pem : Buffer.from(pem).toString('latin1')
}
