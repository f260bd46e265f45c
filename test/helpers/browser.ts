// A real headless Chromium (Debian's package, installed by scripts/ensure-debian.sh when missing)
// driven by playwright-core: no browser is downloaded.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { ROOT } from './root'

export function chromiumPath(): string {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-debian.sh'), 'chromium:chromium'], { stdio: 'inherit' })
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (existsSync(p)) return p
  throw new Error('chromium is not installed')
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // The machine has no network beyond loopback: no background traffic, no sandbox as root.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage'
    ]
  })
}

/** Where screenshots are kept (CI keeps reports/ as its artifacts). */
export const SCREENSHOTS = join(ROOT, 'reports', 'screenshots')
