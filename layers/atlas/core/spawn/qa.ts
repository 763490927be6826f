// Browser QA of a chantier's routes on the pre-production: playwright-core driving Debian's
// chromium. For each route: an HTTP status ≥ 400 (or a page that does not load) is an
// application error; console errors and uncaught page errors are browser errors.
import type { Browser } from 'playwright-core'
import type { QaError } from './prompts'

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

export async function launchChromium(executablePath: string): Promise<Browser> {
  const { chromium } = await import('playwright-core')
  return await chromium.launch({ executablePath, args: CHROMIUM_ARGS })
}

export interface QaRouteReport {
  route: string
  url: string
  status: number | null
  errors: QaError[]
}

export interface QaReport {
  passed: boolean
  baseUrl: string | null
  routes: QaRouteReport[]
  errors: QaError[]
  /** Why nothing was checked, when nothing was. */
  note?: string
}

export class QaConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'QaConfigError'
  }
}

/**
 * The address of a route: a path against the base URL, or an absolute http(s) address on the
 * base URL's origin (the QA never wanders elsewhere). Throws QaConfigError otherwise.
 */
export function resolveRoute(route: string, baseUrl: string | null): string {
  const trimmed = route.trim()
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed)) {
    let url: URL
    try {
      url = new URL(trimmed)
    }
    catch {
      throw new QaConfigError(`route "${trimmed}" is not a valid address`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new QaConfigError(`route "${trimmed}": only http(s) addresses are checked`)
    if (baseUrl && url.origin !== new URL(baseUrl).origin) throw new QaConfigError(`route "${trimmed}" is outside the pre-production (${new URL(baseUrl).origin})`)
    return url.toString()
  }
  if (!baseUrl) throw new QaConfigError(`route "${trimmed}" is a path but the tenant has no pre-production address (clients.config.preprodUrl) and SPAWN_QA_BASE_URL is not set`)
  const base = new URL(baseUrl)
  const path = trimmed.startsWith('/') ? trimmed : `/${trimmed}`
  return new URL(`${base.pathname.replace(/\/+$/, '')}${path}`, base.origin).toString()
}

export interface QaOptions {
  baseUrl: string | null
  navigationTimeoutMs: number
  settleMs: number
  launch: () => Promise<Browser>
}

export async function runQa(routes: string[], options: QaOptions): Promise<QaReport> {
  // A chantier is never passed unchecked: with no route in the contract, its home page is.
  const note = routes.length === 0 ? 'the result contract lists no route: the home page was checked' : undefined
  const targets = (routes.length > 0 ? routes : ['/']).map(route => ({ route, url: resolveRoute(route, options.baseUrl) }))
  const browser = await options.launch()
  const reports: QaRouteReport[] = []
  try {
    const context = await browser.newContext({ ignoreHTTPSErrors: true })
    for (const { route, url } of targets) {
      const page = await context.newPage()
      const errors: QaError[] = []
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push({ kind: 'browser', route, message: `console error: ${message.text().slice(0, 1000)}` })
      })
      page.on('pageerror', error => errors.push({ kind: 'browser', route, message: `page error: ${error.message.slice(0, 1000)}` }))
      let status: number | null = null
      try {
        const response = await page.goto(url, { waitUntil: 'load', timeout: options.navigationTimeoutMs })
        status = response?.status() ?? null
        if (status !== null && status >= 400) errors.unshift({ kind: 'application', route, message: `HTTP ${status} at ${url}` })
        if (options.settleMs > 0) await page.waitForTimeout(options.settleMs)
      }
      catch (error) {
        errors.unshift({ kind: 'application', route, message: `the page did not load: ${(error as Error).message.split('\n')[0]!.slice(0, 500)}` })
      }
      reports.push({ route, url, status, errors })
      await page.close()
    }
    await context.close()
  }
  finally {
    await browser.close()
  }
  const errors = reports.flatMap(report => report.errors)
  return { passed: errors.length === 0, baseUrl: options.baseUrl, routes: reports, errors, ...(note ? { note } : {}) }
}
