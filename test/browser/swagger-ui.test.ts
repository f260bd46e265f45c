// The UI as a person uses it (SPEC: pick an operation, Try it out, edit the fields, Execute, read the
// result below), in a real headless Chromium: against the embedded edge and through nginx. Each run
// keeps a screenshot in reports/screenshots/.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import type { Browser, Page } from 'playwright-core'
import { startDeployPlatform, cli, packCopy, type DeployPlatform } from '../helpers/processes/deploy'
import { EXAMPLE_DIR } from '../helpers/platform'
import { startNginx, type RunningNginx } from '../helpers/nginx'
import { launchChromium, SCREENSHOTS } from '../helpers/browser'
import { defaultSerializers } from '../../src/microservice/serializers'
import example, { In } from '../../examples/example'

const work = mkdtempSync(join(tmpdir(), 'browser-test-'))

/**
 * The XML request sample Swagger UI shows for multiply (rendered from the example and the schema's
 * xml names), read by the sequence's serializer as the UI shows it.
 */
async function xmlSample(page: Page, base: string): Promise<{ text: string; read: unknown }> {
  await page.goto(`${base}/_swagger/example`)
  // The POST operation (the path also has its CORS preflight, OPTIONS).
  const op = page.locator('.opblock.opblock-post', {
    has: page.locator('.opblock-summary-path', { hasText: /^\/calculator\/multiply$/ })
  })
  await op.locator('.opblock-summary').click()
  const section = op.locator('.opblock-section-request-body')
  await section.locator('select').selectOption('application/xml')
  const code = section.locator('.highlight-code code').first()
  await code.filter({ hasText: '<' }).waitFor()
  const text = await code.innerText()
  const alphaXml = defaultSerializers(new Map(Object.entries(example.aliases ?? {}))).alphaXmlSerializer
  return { text, read: alphaXml.deserialize(Buffer.from(text), In) }
}

/** Opens the UI, runs multiply with a = 6, b = 9 through Try it out, and returns the answer shown. */
async function tryMultiply(page: Page, base: string, shot: string): Promise<string> {
  await page.goto(`${base}/_swagger/example`)
  // The POST operation (the path also has its CORS preflight, OPTIONS).
  const op = page.locator('.opblock.opblock-post', {
    has: page.locator('.opblock-summary-path', { hasText: /^\/calculator\/multiply$/ })
  })
  await op.locator('.opblock-summary').click()
  // What a reader sees before trying: the summary, and the other documented method beside it.
  await page.getByText('Multiplies a by b', { exact: true }).waitFor()
  assert.equal(
    await page.locator('.opblock-post .opblock-summary-path', { hasText: /^\/calculator\/multiplyToInt$/ }).count(),
    1
  )
  assert.equal(
    await page.locator('.opblock-summary-path', { hasText: /multiplyInts/ }).count(),
    0,
    'RMC-only methods are absent'
  )
  await op.getByRole('button', { name: 'Try it out' }).click()
  const body = op.locator('textarea.body-param__text')
  await body.fill('{"a":6,"b":9}')
  await op.getByRole('button', { name: 'Execute' }).click()
  // The response body as the page shows it (its code block, not the Copy and Download buttons).
  const result = op
    .locator('.live-responses-table tbody tr.response .response-col_description .highlight-code code')
    .first()
  await result.waitFor({ timeout: 10000 })
  const status = (
    await op.locator('.live-responses-table tbody tr.response .response-col_status').first().innerText()
  ).trim()
  assert.equal(status, '200')
  mkdirSync(SCREENSHOTS, { recursive: true })
  // Two views a person would look at: the top of the page with the operation open, and the answer.
  await page.evaluate('window.scrollTo(0, 0)')
  await page.screenshot({ path: join(SCREENSHOTS, `top-${shot}`) })
  await op.locator('.live-responses-table').first().scrollIntoViewIfNeeded()
  await page.evaluate('window.scrollBy(0, 250)')
  await page.screenshot({ path: join(SCREENSHOTS, shot) })
  return (await result.innerText()).replace(/\s+/g, '')
}

describe('Swagger UI in a real browser', () => {
  let d: DeployPlatform
  let nginx: RunningNginx
  let browser: Browser
  before(async () => {
    d = await startDeployPlatform()
    const r = await cli(d.configFile, 'upload', await packCopy(EXAMPLE_DIR, work))
    assert.equal(r.code, 0, r.stderr)
    nginx = await startNginx([{ host: '127.0.0.1', gatewayPort: d.platform.port, edgePort: d.platform.edgePort }])
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    await nginx?.stop()
    await d?.stop()
  })

  test('embedded edge: open multiply, Try it out, edit the body, Execute, read {"result":54}', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    assert.equal(
      await tryMultiply(page, `http://127.0.0.1:${d.platform.edgePort}`, 'swagger-ui-edge.png'),
      '{"result":54}'
    )
    await page.close()
  })

  test("the XML sample shown for multiply is alpha XML that the example's serializer reads as the example", async (t) => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    const { text, read } = await xmlSample(page, `http://127.0.0.1:${d.platform.edgePort}`)
    t.diagnostic(`shown: ${text}`)
    assert.deepEqual(read, { a: 6, b: 7 }, text)
    await page.close()
  })

  test('the same through nginx', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    assert.equal(await tryMultiply(page, nginx.url, 'swagger-ui-nginx.png'), '{"result":54}')
    await page.close()
  })
})
