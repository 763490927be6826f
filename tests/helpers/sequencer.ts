// The order files are handed to the workers: the long ones first, so that the short ones
// fill the other workers around them instead of a 9-minute file starting last and
// running alone. Measured on the 2-core machine (clean-clone runs, seconds per file);
// every other file keeps vitest's own order after them.
import { BaseSequencer, type TestSpecification } from 'vitest/node'

export const SLOW_FIRST = [
  'tests/system/two-commands.test.ts', // ~480 s: clones, npm installs under Node 20 and 24, a build
  'tests/system/soak.test.ts', // ~190 s, mostly waiting on its fixed 3-minute schedule
  'layers/spawn/tests/integration/engine.test.ts',
  'tests/system/multi-host.test.ts',
  'tests/system/bench-smoke.test.ts',
  'tests/e2e/cockpit.test.ts',
  'layers/memory/tests/integration/eval-gate.test.ts',
  'tests/system/start.test.ts',
  'tests/e2e/spawn-live.test.ts',
  'layers/atlas/tests/integration/collector-kill.test.ts',
  'layers/learning/tests/integration/no-path-without-human.test.ts',
]

function rank(spec: TestSpecification): number {
  const index = SLOW_FIRST.findIndex(file => spec.moduleId.endsWith(`/${file}`))
  return index < 0 ? SLOW_FIRST.length : index
}

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Array.prototype.sort is stable: files outside the list keep the base order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}
