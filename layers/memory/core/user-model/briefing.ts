// formatForBriefing: a profile slice as text ready for injection into an agent briefing.
// The core slice is cut to stay under its 1,000-token budget (longest values shortened
// first, then whole items dropped, with a note).
import { CORE_TOKEN_BUDGET, estimateTokens, type UserSlice } from './slices'
import type { Profile } from './profile'

const LABELS: Record<string, string> = {
  communication_style: 'Communication style',
  cognitive_preferences: 'Cognitive preferences',
  appointment_slots: 'Appointment slots',
  schedules: 'Schedules',
  profile: 'Profile',
  skills: 'Skills',
  history: 'History',
  preferences: 'Preferences',
  private: 'Private (primary operator only)',
}

function label(key: string): string {
  return LABELS[key] ?? key.replace(/_/g, ' ').replace(/^./, c => c.toUpperCase())
}

function lines(value: unknown, indent = ''): string[] {
  if (value === null || value === undefined) return []
  if (Array.isArray(value)) return value.flatMap(item => (typeof item === 'object' && item !== null ? lines(item, indent) : [`${indent}- ${String(item)}`]))
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => {
      if (item !== null && typeof item === 'object') return [`${indent}- ${label(key)}:`, ...lines(item, `${indent}  `)]
      return [`${indent}- ${label(key)}: ${String(item)}`]
    })
  }
  return [`${indent}- ${String(value)}`]
}

interface Section {
  header: string
  lines: string[]
  dropped: number
}

function sections(profile: Profile): Section[] {
  return Object.entries(profile).map(([key, value]) => ({ header: `${label(key)}:`, lines: lines(value, '  ').map(line => (line.length > 240 ? `${line.slice(0, 237)}…` : line)), dropped: 0 }))
}

function render(title: string, parts: Section[], note?: string): string {
  const out = [title]
  for (const part of parts) {
    out.push(part.header, ...part.lines)
    if (part.dropped) out.push(`  - … (${part.dropped} more)`)
  }
  if (note) out.push(note)
  return out.join('\n')
}

/**
 * A slice as briefing text. Over budget (the core slice: 1,000 tokens), the longest
 * sections lose their last items first, so that every section keeps its head.
 */
export function formatForBriefing(profile: Profile, slice: UserSlice = 'core', budget = slice === 'core' ? CORE_TOKEN_BUDGET : Number.POSITIVE_INFINITY): string {
  const title = `## User profile (${slice})`
  const parts = sections(profile)
  if (estimateTokens(render(title, parts)) < budget) return render(title, parts)
  const note = '(profile shortened to fit the briefing budget)'
  while (estimateTokens(render(title, parts, note)) >= budget) {
    const longest = parts.reduce<Section | null>(
      (best, part) => (part.lines.length > 1 && (!best || part.lines.length > best.lines.length) ? part : best),
      null,
    )
    if (!longest) break
    longest.lines.pop()
    longest.dropped++
  }
  return render(title, parts, note)
}
