/**
 * Microservices announced to this gateway before they are deployed here: during a rollout to several
 * nodes (`microservice upload ZIP --node …`), a node that has not received a new microservice yet
 * holds its calls until it serves it, instead of answering 404 while another node already does.
 */
export class Arrivals {
  private readonly expected = new Map<
    string,
    { promise: Promise<boolean>; settle: (arrived: boolean) => void; timer: NodeJS.Timeout }
  >()
  /** Told of every announcement (the listener threads' directories announce it too). */
  onExpect: ((name: string, ms: number) => void) | null = null

  /**
   * Calls for `name` wait up to `ms` for it (0 withdraws the announcement: they get their 404 now).
   * Announcing again sets a new deadline; calls already waiting keep waiting.
   */
  expect(name: string, ms: number): void {
    this.onExpect?.(name, ms)
    const current = this.expected.get(name)
    if (ms <= 0) {
      if (current !== undefined) this.settle(name, false)
      return
    }
    if (current !== undefined) {
      clearTimeout(current.timer)
      current.timer = this.deadline(name, ms)
      return
    }
    let settle: (arrived: boolean) => void = () => {}
    const promise = new Promise<boolean>((resolve) => (settle = resolve))
    this.expected.set(name, { promise, settle, timer: this.deadline(name, ms) })
  }

  /** Resolves true when `name` serves here, false at the deadline; undefined when it is not announced. */
  arrival(name: string): Promise<boolean> | undefined {
    return this.expected.get(name)?.promise
  }

  /** The names announced and not arrived yet. */
  names(): string[] {
    return [...this.expected.keys()]
  }

  /** `name` serves here now: its waiting calls go on. */
  arrived(name: string): void {
    if (this.expected.has(name)) this.settle(name, true)
  }

  close(): void {
    for (const name of [...this.expected.keys()]) this.settle(name, false)
  }

  private deadline(name: string, ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.settle(name, false), ms)
    timer.unref()
    return timer
  }

  private settle(name: string, arrived: boolean): void {
    const e = this.expected.get(name)!
    this.expected.delete(name)
    clearTimeout(e.timer)
    e.settle(arrived)
  }
}
