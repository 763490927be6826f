// The spawn's checkout ignores the placeholders srt lays over its write-protected paths
// (layers/spawn/core/workspace.ts): the list is srt's own, and what stands at those paths is
// invisible to `git status` and `git add -A` while the agent's own files are not. The real
// placeholders (/dev/null mounts inside srt) are met in tests/integration/claude-cli.test.ts.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DANGEROUS_FILES, getDangerousDirectories } from '@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js'
import { prepareWorkspace, SRT_PLACEHOLDERS, WorkspaceError } from '#layers/spawn/core/workspace'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

describe('the spawn\'s checkout and srt\'s placeholders', () => {
  it('names every path srt write-protects in the working folder (an srt upgrade that adds one fails here)', () => {
    expect([...SRT_PLACEHOLDERS].sort()).toEqual([...DANGEROUS_FILES, ...getDangerousDirectories()].sort())
  })

  it('leaves them out of `git status` and `git add -A`, and nothing else', async () => {
    const root = mkdtempSync(join(tmpdir(), 'spawn-workspace-'))
    roots.push(root)
    const workspace = await prepareWorkspace({ root, spawnId: 'ws1', repository: null, owner: null })
    const git = (...args: string[]) => execFileSync('git', ['-C', workspace.workDir, ...args], { encoding: 'utf8' })
    for (const path of SRT_PLACEHOLDERS) {
      // A directory placeholder with something in it, a file placeholder empty (as bwrap makes it).
      const file = path.includes('/') || ['.vscode', '.idea'].includes(path) ? join(workspace.workDir, path, 'stub') : join(workspace.workDir, path)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, '')
    }
    writeFileSync(join(workspace.workDir, 'page.html'), '<h1>hello</h1>\n')
    mkdirSync(join(workspace.workDir, 'sub'))
    // Anchored at the checkout's root: a file of that name deeper down is the agent's.
    writeFileSync(join(workspace.workDir, 'sub', '.profile'), 'x\n')
    expect(git('status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).sort()).toEqual(['?? page.html', '?? sub/.profile'])
    git('add', '-A')
    expect(git('diff', '--cached', '--name-only').split('\n').filter(Boolean).sort()).toEqual(['page.html', 'sub/.profile'])
  })

  it('checks out the client\'s branch, where the agent\'s commits go; refuses a branch that is not one', async () => {
    const root = mkdtempSync(join(tmpdir(), 'spawn-workspace-'))
    roots.push(root)
    const origin = join(root, 'origin')
    const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, '-c', 'user.name=Test', '-c', 'user.email=test@localhost', ...args], { encoding: 'utf8' }).trim()
    execFileSync('git', ['init', '--quiet', '--initial-branch=main', origin])
    writeFileSync(join(origin, 'README.md'), 'main\n')
    git(origin, 'add', '-A')
    git(origin, 'commit', '--quiet', '-m', 'init')
    git(origin, 'checkout', '--quiet', '-b', 'release/preprod')
    writeFileSync(join(origin, 'BRANCH.txt'), 'release/preprod\n')
    git(origin, 'add', '-A')
    git(origin, 'commit', '--quiet', '-m', 'the branch')
    git(origin, 'checkout', '--quiet', 'main')
    const onBranch = await prepareWorkspace({ root, spawnId: 'ws-branch', repository: origin, branch: 'release/preprod', owner: null })
    expect(git(onBranch.workDir, 'symbolic-ref', '--short', 'HEAD')).toBe('release/preprod')
    expect(readFileSync(join(onBranch.workDir, 'BRANCH.txt'), 'utf8')).toBe('release/preprod\n')
    // The agent's commit lands on that branch, ready to push back to it.
    writeFileSync(join(onBranch.workDir, 'page.html'), '<h1>new</h1>\n')
    git(onBranch.workDir, 'add', 'page.html')
    git(onBranch.workDir, 'commit', '--quiet', '-m', 'feat: the page')
    expect(git(onBranch.workDir, 'log', '--format=%s', 'release/preprod', '-2').split('\n')).toEqual(['feat: the page', 'the branch'])
    const byDefault = await prepareWorkspace({ root, spawnId: 'ws-default', repository: origin, branch: null, owner: null })
    expect(git(byDefault.workDir, 'symbolic-ref', '--short', 'HEAD')).toBe('main')
    const empty = await prepareWorkspace({ root, spawnId: 'ws-empty', repository: null, branch: 'preprod', owner: null })
    expect(git(empty.workDir, 'symbolic-ref', '--short', 'HEAD')).toBe('preprod')
    await expect(prepareWorkspace({ root, spawnId: 'ws-missing', repository: origin, branch: 'nowhere', owner: null })).rejects.toThrow(/could not be checked out \(.*, branch nowhere\)/)
    await expect(prepareWorkspace({ root, spawnId: 'ws-option', repository: origin, branch: '--upload-pack=touch /tmp/x', owner: null })).rejects.toBeInstanceOf(WorkspaceError)
  })
})
