/** One ranked list of candidate ids (best first) and how much its ranks count. */
export interface RankedLeg {
  ids: readonly string[];
  weight: number;
}

export interface Fused {
  id: string;
  score: number;
}

/**
 * Reciprocal Rank Fusion: score(d) = Σ_legs weight / (k + rank), ranks from 1. Only ranks matter,
 * so BM25 scores and vector distances never need to be put on one scale. Ties keep the order in
 * which ids were first seen (the earlier leg's ranking).
 */
export function fuseRrf(legs: readonly RankedLeg[], k = 60): Fused[] {
  const scores = new Map<string, number>();
  for (const leg of legs) {
    if (leg.weight <= 0) continue;
    leg.ids.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + leg.weight / (k + i + 1)));
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
