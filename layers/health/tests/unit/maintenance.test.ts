// The maintenance loop's pure parts: the reference syntax, the drift score, the mechanical
// repair (by basename, by unique symbol, flagged otherwise), the publishing gates, the bound
// on deep regeneration and the unwrapping of the model's answer.
import { describe, expect, it } from 'vitest'
import type { AiFacade } from '#layers/ai/core/facade'
import { inspectChapter, measureCoverage } from '../../core/maintenance/drift'
import { regenerate, unwrapChapter } from '../../core/maintenance/deep'
import { checkProposal, leakReasons, styleReasons } from '../../core/maintenance/gates'
import { exportedSymbols, parseReferences, type CodeTree } from '../../core/maintenance/references'
import { repairChapter } from '../../core/maintenance/repair'

const tree: CodeTree = {
  files: new Map([
    ['src/core/engine.ts', new Set(['startEngine'])],
    ['src/a/index.ts', new Set(['alpha'])],
    ['src/b/index.ts', new Set(['beta'])],
    ['src/orphan.ts', new Set<string>()],
  ]),
  mtimes: new Map([['src/core/engine.ts', 2_000], ['src/a/index.ts', 0], ['src/b/index.ts', 0], ['src/orphan.ts', 0]]),
}

describe('references', () => {
  it('reads file, symbol and call spans outside fenced blocks; other spans are prose', () => {
    const refs = parseReferences('See `src/a.ts`, `src/b.ts#run`, `start()` and `npm test`.\n```\n`src/c.ts`\n```\n')
    expect(refs.map(r => [r.kind, r.raw])).toEqual([['file', 'src/a.ts'], ['symbol', 'src/b.ts#run'], ['call', 'start()']])
  })

  it('finds exported symbols', () => {
    expect([...exportedSymbols('export async function a() {}\nexport const b = 1\nexport interface C {}\nconst d = 2\nexport default class E {}\n')]).toEqual(['a', 'b', 'C', 'E'])
  })
})

describe('drift and coverage', () => {
  it('scores dead references fully and stale ones by half', () => {
    const drift = inspectChapter('c.md', { text: '# C\n`src/gone.ts` `src/core/engine.ts` `alpha()` `src/b/index.ts#beta`', mtimeMs: 1_000 }, tree)
    expect(drift).toMatchObject({ references: 4, dead: ['src/gone.ts'], stale: ['src/core/engine.ts'], score: 38 })
  })

  it('lists the files no chapter cites, directly or through a symbol', () => {
    const chapters = new Map([['c.md', { text: '`src/core/engine.ts` `beta()` `src/a/index.ts#alpha`', mtimeMs: 0 }]])
    expect(measureCoverage(chapters, tree)).toEqual({ unitsTotal: 4, uncovered: ['src/orphan.ts'] })
  })
})

describe('mechanical repair', () => {
  it('rewrites a moved file by its basename and a moved symbol by its only exporter; flags the rest', () => {
    const repair = repairChapter('`src/engine.ts` `old/x.ts#alpha` `src/index.ts` `gone()`', tree)
    expect(repair.fixed).toEqual([{ from: 'src/engine.ts', to: 'src/core/engine.ts' }, { from: 'old/x.ts#alpha', to: 'src/a/index.ts#alpha' }])
    // Two index.ts files: ambiguous, flagged rather than guessed.
    expect(repair.flagged).toEqual(['src/index.ts', 'gone()'])
    expect(repair.text).toBe('`src/core/engine.ts` `src/a/index.ts#alpha` `src/index.ts` `gone()`')
  })
})

describe('publishing gates', () => {
  it.each([
    ['password: "s3cr3t-value-1"', 'secret: password or token assignment'],
    ['key sk-proj-abcdefghijklmnop1234', 'secret: API key'],
    ['-----BEGIN OPENSSH PRIVATE KEY-----', 'secret: private key'],
    ['postgres://app:pw@db/x', 'secret: URL with credentials'],
    ['reach 192.168.1.20 first', 'internal address: an IP address'],
    ['reach fe80::1:2 first', 'internal address: an IP address'],
    ['on build.corp or db.internal', 'internal address: host name build.corp'],
  ])('refuses "%s"', (text, reason) => {
    expect(leakReasons(text)).toContain(reason)
  })

  it('passes a clean chapter and checks style and drift', () => {
    expect(checkProposal('c.md', '# C\n\nStarts in `src/core/engine.ts#startEngine`.\n', tree)).toEqual({ passed: true, reasons: [] })
    expect(styleReasons(`No title\n${'x'.repeat(121)}\n\`\`\`\n${'y'.repeat(200)}\n\`\`\`\nTODO later`)).toEqual([
      'style: the chapter does not open with a "# " title', 'style: line 2 is longer than 120 characters', 'style: a TODO/FIXME/XXX marker',
    ])
    expect(checkProposal('c.md', '# C\n`src/gone.ts`\n', tree).reasons).toEqual(['drift: dead reference src/gone.ts'])
  })
})

describe('deep regeneration', () => {
  const targets = ['a.md', 'b.md', 'c.md'].map(chapter => ({ chapter, text: '# X', dead: ['src/gone.ts'], stale: [] }))
  const ai = (calls: string[]) => ({
    complete: async (request: { prompt: string }) => {
      calls.push(request.prompt)
      return { content: '```markdown\n# X\n```', offline: false }
    },
  }) as unknown as AiFacade

  it('stops at --deep-max and starts nothing past the budget', async () => {
    const calls: string[] = []
    const capped = await regenerate(targets, tree, { ai: ai(calls), max: 2, budgetMs: 60_000, log: () => {} })
    expect(capped).toMatchObject({ failed: 0, skipped: 1 })
    expect(capped.results).toEqual([{ chapter: 'a.md', text: '# X\n' }, { chapter: 'b.md', text: '# X\n' }])
    let t = 0
    const budgeted = await regenerate(targets, tree, { ai: ai(calls), max: 4, budgetMs: 1_000, log: () => {}, clock: () => (t += 600) })
    expect(budgeted.results.map(r => r.chapter)).toEqual(['a.md'])
    expect(calls).toHaveLength(3)
  })

  it('unwraps a fenced answer', () => {
    expect(unwrapChapter('```md\n# T\nbody\n```')).toBe('# T\nbody\n')
    expect(unwrapChapter('# T')).toBe('# T\n')
  })
})
