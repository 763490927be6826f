// A route of the hub's API as Nitro scanned it (modules/api-routes.ts hands these to the server
// as `#api-routes`), and the file-name rules Nitro follows, so a test can list the routes from
// the files without a build. Framework-free.

export interface ScannedRoute {
  /** Upper-case HTTP method (a file without a method suffix answers every one; listed as GET). */
  method: string
  /** Nitro's form: `/api/clients/:id`. */
  route: string
  /** The handler file, relative to the repository root. */
  file: string
  /** The comment just above the handler's `export default`, if any: the operation's description. */
  comment: string | null
}

const METHOD_SUFFIX = /\.(connect|delete|get|head|options|patch|post|put|trace)$/

/** The method and route Nitro gives a file under an `api/` folder (its path below that folder). */
export function routeFromApiFile(pathBelowApi: string): { method: string, route: string } {
  // Route groups, `(name)/`, are folders only: they add nothing to the path.
  let name = pathBelowApi.replace(/\.[cm]?[jt]s$/, '').replace(/\([^(/]+\)\//g, '')
  const method = METHOD_SUFFIX.exec(name)?.[1]?.toUpperCase() ?? 'GET'
  name = name.replace(METHOD_SUFFIX, '').replace(/(^|\/)index$/, '')
  const route = name
    .replace(/\[\.\.\.(\w+)\]/g, '**:$1')
    .replace(/\[\.\.\.\]/g, '**')
    .replace(/\[(\w+)\]/g, ':$1')
  return { method, route: `/api${route ? `/${route}` : ''}` }
}

/** `//` lines read upwards from `from` (exclusive), joined. */
function commentAbove(lines: string[], from: number): string[] {
  const comment: string[] = []
  for (let index = from - 1; index >= 0; index--) {
    const line = lines[index]!.trim()
    if (!line.startsWith('//')) break
    comment.unshift(line.replace(/^\/\/\s?/, ''))
  }
  return comment
}

/** What the route says it does: the comment right above `export default`, else the file's opening one. */
export function routeComment(source: string): string | null {
  const lines = source.split('\n')
  const at = lines.findIndex(line => line.startsWith('export default'))
  let comment = at < 0 ? [] : commentAbove(lines, at)
  if (!comment.length) {
    const end = lines.findIndex(line => !line.trim().startsWith('//'))
    comment = commentAbove(lines, end < 0 ? lines.length : end)
  }
  return comment.length ? comment.join(' ') : null
}
