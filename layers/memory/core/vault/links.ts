// `[[wiki links]]`: `[[target]]`, `[[target|alias]]`, `[[target#heading]]`, `![[embed]]`.

const WIKI_LINK = /\[\[([^[\]\n]+?)\]\]/g

/** Outgoing link targets as written (alias and heading removed), deduplicated, in order. */
export function extractWikiLinks(body: string): string[] {
  const seen = new Set<string>()
  const targets: string[] = []
  for (const match of body.matchAll(WIKI_LINK)) {
    const target = match[1]!.split('|')[0]!.split('#')[0]!.trim()
    if (!target || seen.has(target)) continue
    seen.add(target)
    targets.push(target)
  }
  return targets
}

/**
 * The names a note answers to in a link, lower-case and without `.md`: its file name, its
 * path with and without the sub-space, and its title.
 */
export function linkNames(path: string, title?: string | null): string[] {
  const withoutExtension = path.replace(/\.md$/i, '')
  const name = withoutExtension.split('/').pop()!
  const withoutSpace = withoutExtension.split('/').slice(1).join('/')
  return [...new Set([name, withoutSpace, withoutExtension, title ?? ''].map(value => value.trim().toLowerCase()).filter(Boolean))]
}

/** Does `target` (as written in a link) designate the note at `path` (titled `title`)? Case-insensitive. */
export function linkTargets(target: string, path: string, title?: string | null): boolean {
  const wanted = target.trim().toLowerCase().replace(/\.md$/i, '')
  return linkNames(path, title).includes(wanted)
}
