// Certificates for the TLS tests, made by the openssl command (Debian's package, installed by
// scripts/ensure-debian.sh when missing): a CA, and leaf certificates it signs or that sign themselves.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as tlsConnect } from 'node:tls'
import { ROOT } from '../root'

let ensured = false
function openssl(args: string[], cwd: string): void {
  if (!ensured) {
    // The image (where the uWS 20.57 suite runs) has openssl but no bash to run the installer with.
    try {
      execFileSync('openssl', ['version'], { stdio: 'ignore' })
    } catch {
      execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'openssl:openssl'], { stdio: 'inherit' })
    }
    ensured = true
  }
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
}

export interface CertificateFiles {
  certFile: string
  keyFile: string
}

export interface Made extends CertificateFiles {
  /** The CA certificate that signed it (its own file when it signs itself). */
  caFile: string
}

/** A directory of certificates for one test file, with a CA of its own. */
export class CertificateMaker {
  readonly dir = mkdtempSync(join(tmpdir(), 'igw-certs-'))
  readonly caFile = join(this.dir, 'ca.crt')
  private readonly caKey = join(this.dir, 'ca.key')
  private serial = 0

  constructor() {
    openssl(
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        this.caKey,
        '-out',
        this.caFile,
        '-days',
        '30',
        '-subj',
        '/CN=igw test CA'
      ],
      this.dir
    )
  }

  /**
   * A certificate for `names` (DNS names; 127.0.0.1 is always there) signed by this maker's CA;
   * `days` negative: already expired. `key`: P-256 (default) or RSA 2048; `passphrase` encrypts the key.
   * `subject` replaces the CN (`/O=Acme/CN=billing`); `uris` adds URI names (`spiffe://test/edge`).
   */
  make(
    file: string,
    names: string[],
    options: {
      days?: number
      key?: 'ec' | 'rsa'
      passphrase?: string
      cn?: string
      subject?: string
      uris?: string[]
    } = {}
  ): Made {
    const certFile = join(this.dir, `${file}.crt`)
    const keyFile = join(this.dir, `${file}.key`)
    const csr = join(this.dir, `${file}.csr`)
    const ext = join(this.dir, `${file}.ext`)
    const key =
      options.key === 'rsa' ? ['-newkey', 'rsa:2048'] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']
    const encrypt = options.passphrase === undefined ? ['-nodes'] : ['-passout', `pass:${options.passphrase}`]
    openssl(
      [
        'req',
        '-new',
        ...key,
        ...encrypt,
        '-keyout',
        keyFile,
        '-out',
        csr,
        '-subj',
        options.subject ?? `/CN=${options.cn ?? names[0] ?? file}`
      ],
      this.dir
    )
    const altNames = [...names.map((n) => `DNS:${n}`), 'IP:127.0.0.1', ...(options.uris ?? []).map((u) => `URI:${u}`)]
    writeFileSync(ext, `subjectAltName=${altNames.join(',')}\n`)
    openssl(
      [
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        this.caFile,
        '-CAkey',
        this.caKey,
        '-set_serial',
        String(++this.serial + 1000),
        '-days',
        String(options.days ?? 30),
        '-extfile',
        ext,
        '-out',
        certFile
      ],
      this.dir
    )
    return { certFile, keyFile, caFile: this.caFile }
  }
}

/** The certificate a new TLS connection to 127.0.0.1:`port` is given for `servername`: its fingerprint and CN. */
export function presented(port: number, servername?: string): Promise<{ fingerprint: string; cn: string }> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect(
      { host: '127.0.0.1', port, ...(servername !== undefined ? { servername } : {}), rejectUnauthorized: false },
      () => {
        const c = socket.getPeerCertificate()
        socket.end()
        resolve({ fingerprint: c.fingerprint256, cn: String(c.subject.CN) })
      }
    )
    socket.on('error', reject)
  })
}
