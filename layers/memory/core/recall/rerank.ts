// The scar re-rank: final = similarity × (1 + importance/10) × exp(−age_days/365). A recent
// high-importance scar is boosted about ×2, an old unimportant one falls to about ×0.4.

export const AGE_DECAY_DAYS = 365
const DAY_MS = 86_400_000

export function ageInDays(createdAt: Date, now: Date): number {
  return Math.max(0, (now.getTime() - createdAt.getTime()) / DAY_MS)
}

/** Importance is 0–10; a lesson not scored yet counts as 0. */
export function scarFactor(importance: number | null, ageDays: number): number {
  const weight = Math.min(10, Math.max(0, importance ?? 0))
  return (1 + weight / 10) * Math.exp(-ageDays / AGE_DECAY_DAYS)
}
