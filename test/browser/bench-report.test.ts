// The HTML report of `microservice bench` as a person looks at it, in a real headless Chromium: the
// verdict, the table of a real run at two concurrencies, and the latency plot drawn with a line per
// concurrency inside the plot's area. The screenshot is kept in reports/screenshots/.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import type { Browser } from 'playwright-core'
import { startDeployPlatform, cli, packCopy, type DeployPlatform } from '../helpers/processes/deploy'
import { EXAMPLE_DIR } from '../helpers/platform'
import { launchChromium, SCREENSHOTS } from '../helpers/browser'

const work = mkdtempSync(join(tmpdir(), 'bench-report-'))

describe('the bench report in a real browser', () => {
  let d: DeployPlatform
  let browser: Browser
  before(async () => {
    d = await startDeployPlatform()
    const r = await cli(d.configFile, 'upload', await packCopy(EXAMPLE_DIR, work))
    assert.equal(r.code, 0, r.stderr)
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    await d?.stop()
  })

  test('the verdict, one table row and one plotted line per concurrency', async () => {
    const html = join(work, 'report.html')
    const run = await cli(
      d.configFile,
      ...['bench', 'example/calculator/multiply', '-c', '1,8', '-d', '1s', '-w', '200ms', '-q', '--html', html]
    )
    assert.equal(run.code, 0, run.stdout + run.stderr)
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
    await page.goto(`file://${html}`)
    assert.equal(
      await page.locator('h1').innerText(),
      `microservice bench example/calculator/multiply → ${d.url}/example/calculator/multiply`
    )
    assert.equal(await page.locator('.verdict').innerText(), 'passed')
    const rows = page.locator('tbody tr')
    assert.equal(await rows.count(), 2)
    assert.equal(await rows.nth(1).locator('td').first().innerText(), '8')
    // The plot is on the page, with its two lines drawn within it (not collapsed to a point or off it).
    const svg = page.locator('svg[aria-label="latency by percentile"]')
    assert.ok(await svg.isVisible())
    const plot = (await svg.boundingBox())!
    const lines = svg.locator('polyline')
    assert.equal(await lines.count(), 2)
    for (let k = 0; k < 2; k++) {
      const box = (await lines.nth(k).boundingBox())!
      assert.ok(box.width > plot.width / 2, `line ${k} spans the percentiles (${box.width} of ${plot.width})`)
      assert.ok(box.y >= plot.y && box.y + box.height <= plot.y + plot.height + 1, `line ${k} inside the plot`)
    }
    assert.match(await svg.innerHTML(), /8 connections: p50 [\d.]+ ms, p99 [\d.]+ ms/)
    mkdirSync(SCREENSHOTS, { recursive: true })
    await page.screenshot({ path: join(SCREENSHOTS, 'bench-report.png'), fullPage: true })
    await page.close()
  })
})
