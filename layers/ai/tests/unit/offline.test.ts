import { describe, expect, it } from 'vitest'
import { offlineEmbedding } from '../../core/offline/embed'
import { classifyIntent } from '../../core/offline/rules'

const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0)

describe('offline embeddings', () => {
  it('are 1024-dimension, L2-normalised and deterministic', () => {
    const vector = offlineEmbedding('Le déploiement a échoué en préproduction', 1024)
    expect(vector).toHaveLength(1024)
    expect(Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0))).toBeCloseTo(1, 10)
    expect(offlineEmbedding('Le déploiement a échoué en préproduction', 1024)).toEqual(vector)
  })

  it('put texts sharing words and word fragments closer than unrelated texts', () => {
    const query = offlineEmbedding('échec du déploiement en préprod', 1024)
    const related = offlineEmbedding('Le deploiement a echoue en preproduction', 1024)
    const unrelated = offlineEmbedding('Les chevaux mangent de l\'avoine', 1024)
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.2)
  })

  it('give an empty text a unit vector, not a zero vector', () => {
    const vector = offlineEmbedding('', 1024)
    expect(vector[0]).toBe(1)
    expect(vector.filter(x => x !== 0)).toHaveLength(1)
  })
})

describe('offline intent rules', () => {
  it.each([
    ['Bonjour, pourriez-vous nous faire un devis ?', 'negociation'],
    ['Le site est en panne, erreur 500 sur la page panier', 'run'],
    ['Nous voulons lancer la refonte de notre plateforme', 'chantier'],
    ['Votre avis sur cet audit SEO ?', 'conseil'],
    ['Our newsletter: click to unsubscribe', 'noise'],
    ['Bonjour, une petite question', 'question'],
  ])('%s → %s, labelled offline', (prompt, intent) => {
    const answer = classifyIntent({ prompt })
    expect(answer).toMatchObject({ intent, offline: true })
    expect(answer.confidence).toBeGreaterThanOrEqual(0.5)
    expect(answer.confidence).toBeLessThan(0.7)
    expect(String(answer.reasoning)).toMatch(/^offline rule-based classification, no model/)
  })
})
