// Where the offline provider sends a question when no model is configured (issue 36, Deliver 6):
// simple keyword rules, French and English — inbox/mail/message to the Atlas inbox search,
// worksite/task/chantier to the worksites search, memory/note/remember to the recall — each
// matched tool called once with the words that are left once the routing and filler words are
// gone. Nothing matched: the recall, as before. Only tools the run is offered are called.
import type { ToolSpec } from '../clients/types'

export interface OfflineRoute {
  tool: string
  /** Where the tool looks, as the answer names it ("the inbox"). */
  where: string
  words: readonly string[]
  /** How the tool takes its query: the whole question (meaning search) or the key terms (substring search). */
  query: 'question' | 'terms' | 'longest_term'
}

export const OFFLINE_ROUTES: readonly OfflineRoute[] = [
  {
    tool: 'search_atlas_messages', where: 'the inbox', query: 'terms',
    words: ['inbox', 'mail', 'email', 'message', 'sender', 'received', 'courriel', 'boite', 'reception', 'expediteur', 'recu'],
  },
  {
    tool: 'search_worksites', where: 'the worksites', query: 'longest_term',
    words: ['worksite', 'task', 'chantier', 'job', 'project', 'board', 'tache', 'projet', 'travaux'],
  },
  {
    tool: 'recall_memory', where: 'memory', query: 'question',
    words: ['memory', 'note', 'remember', 'vault', 'lesson', 'scar', 'memoire', 'souviens', 'rappelle', 'souvenir', 'lecon', 'cicatrice', 'coffre'],
  },
]

/** Words that carry no search meaning (English and French), compared without accents. */
const FILLER = new Set([
  'a', 'about', 'all', 'an', 'and', 'any', 'are', 'at', 'be', 'can', 'do', 'does', 'for', 'from', 'have', 'how', 'i', 'in', 'is', 'it', 'latest',
  'last', 'list', 'me', 'my', 'new', 'of', 'on', 'or', 'our', 'please', 'recent', 'say', 'says', 'show', 'tell', 'the', 'there', 'this', 'to', 'we',
  'what', 'whats', 'when', 'where', 'which', 'who', 'with', 'you', 'your', 'find', 'search', 'look', 'know', 'any', 'some', 'has', 'had', 'was',
  'au', 'aux', 'avec', 'ce', 'ces', 'dans', 'de', 'des', 'du', 'en', 'est', 'et', 'il', 'je', 'la', 'le', 'les', 'ma', 'mes', 'moi', 'mon', 'ne',
  'nos', 'notre', 'nous', 'ou', 'par', 'pas', 'pour', 'quel', 'quelle', 'quels', 'quelles', 'qui', 'quoi', 'que', 'qu', 'sur', 'un', 'une',
  'y', 'a-t-il', 'dernier', 'derniers', 'derniere', 'dernieres', 'nouveau', 'nouveaux', 'montre', 'cherche', 'trouve', 'liste', 'dis',
  'sais', 'ai', 'as', 'neuf', 'nouveautes', 'tu', 'te', 'many', 'much', 'propos', 'concernant', 'on', 'ont', 'sont', 'il', 'elle', 'ca', 'cela', 'tout', 'tous', 'toutes', 'se', 'sa', 'son', 'ses', 'vos', 'votre',
])

/** Lower case, accents removed (é → e), so "tâche" and "tache" route alike. */
export const folded = (text: string) => text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase()

/** The words as written (lower case: what is searched) and folded (what the rules compare). */
function tokens(text: string): Array<{ word: string, key: string }> {
  // Hyphens and apostrophes split too: "e-mail" reads as "mail", "d'Acme" as "acme".
  return text.toLowerCase().split(/[^\p{L}\p{M}\p{N}@.]+/u).map(token => token.replace(/^\.+|\.+$/g, '')).filter(Boolean)
    .map(word => ({ word, key: folded(word) }))
}

/** A token's singular: "tasks" and "messages" route as "task" and "message". */
const singular = (token: string) => (token.length > 3 && token.endsWith('s') ? token.slice(0, -1) : token)
const isRouteWord = (route: OfflineRoute, token: string) => route.words.includes(token) || route.words.includes(singular(token))

export interface RoutedCall { tool: string, input: { query: string }, where: string }

/** The tool calls a question routes to, among the offered tools (the recall when nothing matched). */
export function routeQuestion(question: string, offered: readonly ToolSpec[]): RoutedCall[] {
  const available = new Set(offered.map(tool => tool.name))
  const words = tokens(question)
  const matched = OFFLINE_ROUTES.filter(route => words.some(token => isRouteWord(route, token.key)))
  const routes = (matched.length > 0 ? matched : OFFLINE_ROUTES.filter(route => route.tool === 'recall_memory')).filter(route => available.has(route.tool))
  const terms = words
    .filter(({ key }) => !FILLER.has(key) && !OFFLINE_ROUTES.some(route => isRouteWord(route, key)) && key.length > 1)
    .map(token => token.word)
  return routes.map((route) => {
    const query = route.query === 'question'
      ? question.trim().slice(0, 500)
      : route.query === 'terms' ? terms.slice(0, 4).join(' ') : [...terms].sort((a, b) => b.length - a.length)[0] ?? ''
    return { tool: route.tool, input: { query }, where: route.where }
  })
}

/** Where a tool looks, for the answer ("the inbox"); a tool with no route is named by its words. */
export function whereOf(tool: string): string {
  return OFFLINE_ROUTES.find(route => route.tool === tool)?.where ?? tool.replace(/_/g, ' ')
}
