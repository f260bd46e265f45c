// A listener's certificates (its `tls` block): read and checked before anything listens with them, at
// start and at each renewal, so that a bad file is refused with the key that names it and the reason
// rather than by the TLS library's handshake failures later. docs/security.md, "TLS".
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, type TlsClientFiles, type TlsConfig, type TlsFiles } from '../../common/config/config'
import type { TlsClient } from '../../common/protocol/endpoint'
import { errorMessage } from '../../common/errors/internal'

/** One certificate with its key, checked: what a handshake will present. */
export interface Certificate {
  /** The config key it comes from (ENTRY_POINTS.WEB_SERVICE_FACADE_HTTP.tls, ….serverNames.NAME). */
  at: string
  files: TlsFiles
  /** PEM text of the certificate chain and the key, as read and checked. */
  certPem: string
  keyPem: string
  passphrase: string | undefined
  subject: string
  validTo: Date
  fingerprint: string
}

/** A listener's certificates: the one without a server name, and one per server name (SNI). */
export interface CertificateSet {
  main: Certificate
  names: Map<string, Certificate>
  /** The CAs client certificates must chain to (tls.clientCertificates.caFile), PEM; null: none asked for. */
  clientCa: string | null
}

/** Every certificate of the block read and checked; a ConfigError naming the key otherwise. */
export function loadCertificates(
  tls: TlsConfig,
  env: NodeJS.ProcessEnv = process.env,
  now = Date.now()
): CertificateSet {
  const names = new Map<string, Certificate>()
  for (const [name, files] of Object.entries(tls.serverNames))
    names.set(name, loadCertificate(`${tls.at}.serverNames.${name}`, files, env, now))
  const clients = tls.clientCertificates
  return {
    main: loadCertificate(tls.at, tls, env, now),
    names,
    clientCa: clients === null ? null : readCa(`${clients.at}.caFile`, clients.caFile)
  }
}

/** A CA file's PEM text, checked to hold a certificate. */
function readCa(at: string, file: string): string {
  const ca = readPem(at, file)
  try {
    new X509Certificate(ca)
  } catch (err) {
    throw new ConfigError(`${at}: ${file} is not a PEM certificate (${errorMessage(err)})`)
  }
  return ca
}

/**
 * The files a gateway connects to an instance with over TLS (MICROSERVICES.remote[].tls), each checked
 * now: the CAs parse as certificates, the gateway's own pair as loadCertificates checks it.
 */
export function loadTlsClient(
  files: TlsClientFiles,
  env: NodeJS.ProcessEnv = process.env,
  now = Date.now()
): TlsClient {
  readCa(`${files.at}.caFile`, files.caFile)
  const own =
    files.certFile === null || files.keyFile === null
      ? null
      : loadCertificate(
          files.at,
          { certFile: files.certFile, keyFile: files.keyFile, passphraseEnv: files.passphraseEnv },
          env,
          now
        )
  return {
    caFile: files.caFile,
    certFile: files.certFile,
    keyFile: files.keyFile,
    passphrase: own?.passphrase ?? null,
    serverName: files.serverName
  }
}

/**
 * Why a key file does not open. Whether the file is encrypted is read from its PEM, not from OpenSSL's
 * message: a wrong passphrase usually fails AES-CBC's padding check ("bad decrypt"), but about one in 256
 * leaves valid padding over garbage, which OpenSSL 3 reports as "DECODER routines::unsupported".
 */
function keyRefusal(at: string, files: TlsFiles, keyPem: string, passphrase: string | undefined, why: string): string {
  const encrypted = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: *4, *ENCRYPTED/.test(keyPem)
  if (encrypted && passphrase === undefined)
    return `${at}.keyFile: ${files.keyFile} is encrypted; set ${at}.passphraseEnv to the variable that holds its passphrase`
  const opens = encrypted ? ' that this passphrase opens' : ''
  return `${at}.keyFile: ${files.keyFile} is not a private key${opens} (${why})`
}

function loadCertificate(at: string, files: TlsFiles, env: NodeJS.ProcessEnv, now: number): Certificate {
  let passphrase: string | undefined
  if (files.passphraseEnv !== null) {
    passphrase = env[files.passphraseEnv]
    if (passphrase === undefined)
      throw new ConfigError(`${at}.passphraseEnv: the environment variable ${files.passphraseEnv} is not set`)
  }
  const certPem = readPem(`${at}.certFile`, files.certFile)
  let cert: X509Certificate
  try {
    cert = new X509Certificate(certPem)
  } catch (err) {
    throw new ConfigError(`${at}.certFile: ${files.certFile} is not a PEM certificate (${errorMessage(err)})`)
  }
  const validTo = new Date(cert.validTo)
  const validFrom = new Date(cert.validFrom)
  if (validTo.getTime() <= now)
    throw new ConfigError(
      `${at}.certFile: ${files.certFile} expired on ${validTo.toISOString()} (${cert.subject.replace(/\n/g, ', ')})`
    )
  if (validFrom.getTime() > now)
    throw new ConfigError(`${at}.certFile: ${files.certFile} is not valid before ${validFrom.toISOString()}`)
  const keyPem = readPem(`${at}.keyFile`, files.keyFile)
  let key: KeyObject
  try {
    key = createPrivateKey({ key: keyPem, format: 'pem', ...(passphrase !== undefined ? { passphrase } : {}) })
  } catch (err) {
    throw new ConfigError(keyRefusal(at, files, keyPem, passphrase, errorMessage(err)))
  }
  if (!cert.checkPrivateKey(key))
    throw new ConfigError(`${at}.keyFile: ${files.keyFile} does not match the certificate in ${files.certFile}`)
  return {
    at,
    files,
    certPem,
    keyPem,
    passphrase,
    subject: cert.subject.replace(/\n/g, ', '),
    validTo,
    fingerprint: cert.fingerprint256
  }
}

function readPem(at: string, file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not readable (permission denied)' : errorMessage(err)
    throw new ConfigError(`${at}: ${file}: ${why}`)
  }
}

/** The option names uWS reads a certificate by (it takes files, not PEM text). */
export interface UwsCertificateFiles {
  cert_file_name: string
  key_file_name: string
  passphrase?: string
  /** The CAs a client certificate is verified against; uWS then asks every client for one. */
  ca_file_name?: string
}

/**
 * Runs `use` with the checked PEM text in files only this user may read, removed right after: uWS
 * reads certificates by file name, and a file being renewed could otherwise change between the check
 * and uWS's read (a certificate with the previous key).
 */
export function withPemFiles<T>(
  cert: Certificate,
  use: (files: UwsCertificateFiles) => T,
  clientCa: string | null = null
): T {
  const dir = mkdtempSync(join(tmpdir(), 'igw-tls-'))
  try {
    const certFile = join(dir, 'cert.pem')
    const keyFile = join(dir, 'key.pem')
    writeFileSync(certFile, cert.certPem, { mode: 0o600 })
    writeFileSync(keyFile, cert.keyPem, { mode: 0o600 })
    const caFile = join(dir, 'ca.pem')
    if (clientCa !== null) writeFileSync(caFile, clientCa, { mode: 0o600 })
    return use({
      cert_file_name: certFile,
      key_file_name: keyFile,
      ...(cert.passphrase !== undefined ? { passphrase: cert.passphrase } : {}),
      ...(clientCa !== null ? { ca_file_name: caFile } : {})
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
