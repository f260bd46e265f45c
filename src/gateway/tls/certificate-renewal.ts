// A listener's renewed certificates taken up without a restart: its `tls` block's files looked at
// every reloadIntervalMs (common/tls/file-renewal.ts) and read and checked whole before they are
// served. docs/security.md, "TLS".
import type { TlsConfig } from '../../common/config/config'
import { loadCertificates, type CertificateSet } from './certificates'
import { errorMessage } from '../../common/errors/internal'
import { FileRenewal } from '../../common/tls/file-renewal'

/** What a listener tells the platform's log about its certificates (renewals, refusals). */
export type TlsEvents = (level: 'info' | 'warn', msg: string, fields: Record<string, unknown>) => void

/** The renewal of a `tls` block: `serve` takes the new set (false when it could not). */
export function certificateRenewal(
  tls: TlsConfig,
  current: CertificateSet,
  serve: (set: CertificateSet) => boolean | Promise<boolean>,
  events: TlsEvents
): FileRenewal<CertificateSet> {
  let before = current.main
  return new FileRenewal<CertificateSet>(
    {
      files: () => [
        ...[tls, ...Object.values(tls.serverNames)].flatMap((f) => [f.certFile, f.keyFile]),
        ...(tls.clientCertificates !== null ? [tls.clientCertificates.caFile] : [])
      ],
      load: () => loadCertificates(tls),
      serve,
      served: (set) => {
        events('info', 'tls: renewed certificates served', {
          key: tls.at,
          subject: set.main.subject,
          validTo: set.main.validTo.toISOString(),
          fingerprint: set.main.fingerprint,
          previous: before.fingerprint,
          serverNames: [...set.names.keys()]
        })
        before = set.main
      },
      // Often a renewal half written (a new certificate beside the old key): the next look retries.
      refused: (err) =>
        events('warn', 'tls: renewed files refused; the current certificates are served on', {
          key: tls.at,
          error: errorMessage(err)
        })
    },
    tls.reloadIntervalMs
  )
}
