// Browser QA judges the site, not the browser: Debian chromium against the local fixture site
// (no favicon at all). Chromium's own favicon request does not count; a missing image is a
// warning; a 404 stylesheet or script of the page, a page error and the page's own console
// error fail. Every finding is listed with its kind.
import { afterAll, beforeAll, expect, it, describe } from 'vitest'
import { readSpawnConfig } from '#layers/spawn/core/config'
import { launchChromium, runQa } from '#layers/spawn/core/qa'
import { startQaSite, type QaSite } from '../fixtures/qa-site'

describe('Browser QA of a pre-production site', () => {
  let site: QaSite
  const launch = () => launchChromium(readSpawnConfig({ SPAWN_SANDBOX: 'bwrap' }).chromiumPath)
  const qa = (routes: string[]) => runQa(routes, { baseUrl: site.url, navigationTimeoutMs: 15_000, settleMs: 200, launch })
  beforeAll(async () => {
    site = await startQaSite()
  })
  afterAll(async () => {
    await site?.close()
  })

  it('passes a healthy site without a favicon; a missing image is a warning, not a failure', async () => {
    const report = await qa(['/', '/healthy', '/missing-image'])
    expect(report.passed).toBe(true)
    expect(report.errors).toEqual([])
    expect(JSON.stringify(report)).not.toContain('favicon')
    expect(report.findings).toEqual([
      { kind: 'missing_resource', severity: 'warning', route: '/missing-image', url: `${site.url}/img/gone.png`, message: expect.stringContaining('HTTP 404') },
    ])
  }, 60_000)

  it('fails a 404 stylesheet, a 404 script, a page error and a console error, each with its kind', async () => {
    const report = await qa(['/bad-stylesheet', '/bad-script', '/console'])
    expect(report.passed).toBe(false)
    const kinds = report.findings.map(f => [f.route, f.kind, f.severity])
    expect(kinds).toEqual(expect.arrayContaining([
      ['/bad-stylesheet', 'missing_stylesheet', 'error'],
      ['/bad-script', 'missing_script', 'error'],
      ['/console', 'console_error', 'error'],
      ['/console', 'page_error', 'error'],
    ]))
    expect(kinds).toHaveLength(4)
    expect(report.errors).toEqual(expect.arrayContaining([
      { kind: 'application', route: '/bad-stylesheet', message: expect.stringContaining('css/gone.css: HTTP 404') },
      { kind: 'browser', route: '/console', message: expect.stringContaining('form validator crashed') },
    ]))
  }, 60_000)
})
