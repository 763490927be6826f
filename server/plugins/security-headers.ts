// Pages: a CSP naming the page's own inline scripts by hash (Nuxt inlines its config and
// the colour-mode script), and no x-powered-by. API responses get theirs from
// server/middleware/00-request-guard.ts.
import { createHash } from 'node:crypto'
import { inlineScripts, pageCsp } from '../core/request-policy'

export default defineNitroPlugin((nitroApp) => {
  nitroApp.hooks.hook('render:response', (response, { event }) => {
    const html = typeof response.body === 'string' ? response.body : ''
    const hashes = [...new Set(inlineScripts(html).map(script => createHash('sha256').update(script).digest('base64')))]
    response.headers = { ...response.headers, 'content-security-policy': pageCsp(hashes) }
    delete response.headers['x-powered-by']
    event.node.res.removeHeader('x-powered-by')
  })
  nitroApp.hooks.hook('beforeResponse', (event) => {
    event.node.res.removeHeader('x-powered-by')
  })
})
