/**
 * Waits until `check` holds, asking every 20 ms, and fails naming `what` after `timeoutMs`. A check that
 * throws counts as "not yet" (a server still starting refuses connections); the timeout's message ends
 * with the last such error, so nothing it said is lost.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10000,
  what = 'condition'
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last: unknown = null
  for (;;) {
    try {
      if (await check()) return
    } catch (err) {
      last = err
    }
    if (Date.now() > deadline) {
      const reason = last === null ? '' : ` (last: ${last instanceof Error ? last.message : String(last)})`
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`)
    }
    await new Promise((r) => setTimeout(r, 20))
  }
}
