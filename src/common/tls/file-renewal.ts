// Files renewed in place (certificates that cert-manager or certbot replace) taken up without a
// restart: looked at every interval by their stamp, read and checked whole once changed, then served.
// A renewal half written (a new certificate beside the old key) is refused once, said once, and
// looked at again until it is whole. Used by the listeners' certificates, the admin listener and the
// microservice host's internal TLS (docs/security.md, "TLS").
import { filesStamp } from './file-stamp'

export interface FileRenewalSteps<T> {
  /** The files to look at (their stamps decide whether anything changed). */
  files: () => readonly string[]
  /** Reads and checks the renewed files whole; throws with the reason when they are not right. */
  load: () => T
  /** Serves what was loaded; false when it could not (what is served stays). */
  serve: (loaded: T) => boolean | Promise<boolean>
  /** Told once per change: served, or refused with the reason. */
  served: (loaded: T) => void
  refused: (reason: unknown) => void
}

export class FileRenewal<T> {
  private timer: NodeJS.Timeout | null = null
  private stamp: string
  /** The stamp last refused: a bad renewal is said once, not at every look. */
  private refusedStamp = ''
  private busy = false

  constructor(
    private readonly steps: FileRenewalSteps<T>,
    private readonly intervalMs: number
  ) {
    this.stamp = filesStamp(steps.files())
  }

  start(): void {
    this.timer ??= setInterval(() => void this.look(), this.intervalMs)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
  }

  /** One look at the files; resolves when a change found has been served or refused. */
  async look(): Promise<void> {
    if (this.busy) return
    const stamp = filesStamp(this.steps.files())
    if (stamp === this.stamp || stamp === this.refusedStamp) return
    this.busy = true
    try {
      let loaded: T
      try {
        loaded = this.steps.load()
      } catch (err) {
        this.refusedStamp = stamp
        this.steps.refused(err)
        return
      }
      if (!(await this.steps.serve(loaded))) {
        this.refusedStamp = stamp
        return
      }
      this.stamp = stamp
      this.steps.served(loaded)
    } finally {
      this.busy = false
    }
  }
}
