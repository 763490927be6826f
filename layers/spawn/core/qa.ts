// Browser QA of a chantier's routes on the pre-production: playwright-core driving Debian's
// chromium. It judges the site, not the browser. Each finding has a kind and a severity:
//   errors   http_status (the page answers ≥ 400), navigation (it does not load), page_error
//            (an uncaught exception), console_error (the page's own console.error), and
//            missing_script / missing_stylesheet (a script or stylesheet of the page fails);
//   warnings missing_resource (any other sub-resource that fails: an image, a font…).
// Chromium's own requests (the favicon it asks for by itself) do not count, and its network
// console lines ("Failed to load resource") are judged by the request they are about.
import type { Browser, Request } from 'playwright-core'
import type { QaError } from './prompts'
import { knownFailure } from './failure-words'

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

export async function launchChromium(executablePath: string): Promise<Browser> {
  const { chromium } = await import('playwright-core')
  return await chromium.launch({ executablePath, args: CHROMIUM_ARGS })
}

export const QA_FINDING_KINDS = ['http_status', 'navigation', 'page_error', 'console_error', 'missing_script', 'missing_stylesheet', 'missing_resource'] as const
export type QaFindingKind = typeof QA_FINDING_KINDS[number]

export interface QaFinding {
  kind: QaFindingKind
  severity: 'error' | 'warning'
  route: string
  message: string
  /** The resource concerned, for a failed sub-resource. */
  url?: string
}

export interface QaRouteReport {
  route: string
  url: string
  status: number | null
  errors: QaError[]
  findings: QaFinding[]
}

export interface QaReport {
  passed: boolean
  baseUrl: string | null
  routes: QaRouteReport[]
  /** The findings of severity error, as the next spawn's prompt shows them. */
  errors: QaError[]
  /** Every finding (errors and warnings), with its kind. */
  findings: QaFinding[]
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
      const findings: QaFinding[] = []
      const add = (finding: QaFinding) => findings.push({ ...finding, message: finding.message.slice(0, 1000) })
      page.on('console', (message) => {
        if (message.type() !== 'error') return
        // Chromium's line for a failed request: judged by the request itself below.
        if (message.text().startsWith('Failed to load resource')) return
        add({ kind: 'console_error', severity: 'error', route, message: `console error: ${message.text()}` })
      })
      page.on('pageerror', error => add({ kind: 'page_error', severity: 'error', route, message: `page error: ${error.message}` }))
      // One finding per failed request (Chromium also aborts a request that answered 404).
      const reported = new Set<Request>()
      const subResource = (request: Request, problem: string) => {
        if (isBrowserOwnRequest(request) || request.isNavigationRequest() || reported.has(request)) return
        reported.add(request)
        const type = request.resourceType()
        const kind: QaFindingKind = type === 'script' ? 'missing_script' : type === 'stylesheet' ? 'missing_stylesheet' : 'missing_resource'
        add({ kind, severity: kind === 'missing_resource' ? 'warning' : 'error', route, url: request.url(), message: `${type} ${request.url()}: ${problem}` })
      }
      page.on('response', (response) => {
        if (response.status() >= 400) subResource(response.request(), `HTTP ${response.status()}`)
      })
      page.on('requestfailed', request => subResource(request, request.failure()?.errorText ?? 'failed'))
      let status: number | null = null
      try {
        const response = await page.goto(url, { waitUntil: 'load', timeout: options.navigationTimeoutMs })
        status = response?.status() ?? null
        if (status !== null && status >= 400) findings.unshift({ kind: 'http_status', severity: 'error', route, message: `HTTP ${status} at ${url}` })
        if (options.settleMs > 0) await page.waitForTimeout(options.settleMs)
      }
      catch (error) {
        const said = (error as Error).message.split('\n')[0]!.slice(0, 500)
        findings.unshift({ kind: 'navigation', severity: 'error', route, message: `the page did not load: ${knownFailure(said, 'the pre-production address: the client\'s preprodUrl or SPAWN_QA_BASE_URL') ?? said}` })
      }
      reports.push({ route, url, status, findings, errors: findings.filter(f => f.severity === 'error').map(toQaError) })
      await page.close()
    }
    await context.close()
  }
  finally {
    await browser.close()
  }
  const errors = reports.flatMap(report => report.errors)
  const findings = reports.flatMap(report => report.findings)
  return { passed: errors.length === 0, baseUrl: options.baseUrl, routes: reports, errors, findings, ...(note ? { note } : {}) }
}

/** A request Chromium makes by itself, not the page: the favicon. */
export function isBrowserOwnRequest(request: Pick<Request, 'url' | 'resourceType'>): boolean {
  try {
    return new URL(request.url()).pathname === '/favicon.ico' && request.resourceType() !== 'image'
  }
  catch {
    return false
  }
}

function toQaError(finding: QaFinding): QaError {
  const kind = finding.kind === 'page_error' || finding.kind === 'console_error' ? 'browser' : 'application'
  return { kind, route: finding.route, message: finding.message }
}
