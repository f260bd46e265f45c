// Renewed certificates taken up without a restart: the files of a listener's `tls` block are looked at
// every reloadIntervalMs (a stat of each, through links) and, once changed, read and checked whole
// before they are served. docs/security.md, "TLS".
import type { TlsConfig } from '../config/config'
import { tlsFilesStamp, loadCertificates, type CertificateSet } from './certificates'
import { errorMessage } from '../../common/errors/internal'

/** What a listener tells the platform's log about its certificates (renewals, refusals). */
export type TlsEvents = (level: 'info' | 'warn', msg: string, fields: Record<string, unknown>) => void

export class CertificateRenewal {
  private timer: NodeJS.Timeout | null = null
  private stamp: string
  /** The stamp of files last refused, so that a bad renewal is logged once, not at every look. */
  private refused = ''
  private busy = false

  constructor(
    private readonly tls: TlsConfig,
    private current: CertificateSet,
    /** Serves the new set; false when it could not (the current one stays). */
    private readonly serve: (set: CertificateSet) => Promise<boolean>,
    private readonly events: TlsEvents
  ) {
    this.stamp = tlsFilesStamp(tls)
  }

  start(): void {
    this.timer ??= setInterval(() => void this.look(), this.tls.reloadIntervalMs)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
  }

  /** One look at the files; resolves when a change found has been served or refused. */
  async look(): Promise<void> {
    if (this.busy) return
    const stamp = tlsFilesStamp(this.tls)
    if (stamp === this.stamp || stamp === this.refused) return
    this.busy = true
    try {
      let set: CertificateSet
      try {
        set = loadCertificates(this.tls)
      } catch (err) {
        // Often a renewal half written (a new certificate beside the old key): the next look retries.
        this.refused = stamp
        this.events('warn', 'tls: renewed files refused; the current certificates are served on', {
          key: this.tls.at,
          error: errorMessage(err)
        })
        return
      }
      if (!(await this.serve(set))) {
        this.refused = stamp
        return
      }
      this.stamp = stamp
      const before = this.current.main
      this.current = set
      this.events('info', 'tls: renewed certificates served', {
        key: this.tls.at,
        subject: set.main.subject,
        validTo: set.main.validTo.toISOString(),
        fingerprint: set.main.fingerprint,
        previous: before.fingerprint,
        serverNames: [...set.names.keys()]
      })
    } finally {
      this.busy = false
    }
  }
}
