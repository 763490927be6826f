// Token counts of the briefings: the o200k_base encoding (GPT-4o family) from
// `gpt-tokenizer`, whose ranks ship inside the package (no download, works offline). Other
// providers' tokenizers differ by a few percent; the tiers' budgets are approximate (±20 %).
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base'

export const TOKENIZER = 'o200k_base (gpt-tokenizer)'

export function countTokens(text: string): number {
  return text ? o200kCount(text) : 0
}
