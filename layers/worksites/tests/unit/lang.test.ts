// The worksites words built at run time from a status, an entity, a registry or a timeline kind
// (`t(\`worksites.status.${status}\`)`…) are in both catalogs: tests/unit/translations.test.ts
// checks the literal keys only. The English of a status is the vocabulary's own label.
import { describe, expect, it } from 'vitest'
import en from '../../i18n/locales/en.json'
import fr from '../../i18n/locales/fr.json'
import { ENTITIES, ITERATION_OUTCOMES, REGISTRY_STATUSES, statusLabel, vocabulary } from '../../core/vocabulary'
import { TIMELINE_KINDS } from '../../shared/api'
import { REGISTRIES } from '../../shared/registries-ui'

type Catalog = Record<string, unknown>
const at = (catalog: Catalog, key: string): unknown => key.split('.').reduce<unknown>((node, part) => (node as Catalog | undefined)?.[part], catalog)
const missingIn = (catalog: Catalog, keys: string[]) => keys.filter(key => typeof at(catalog, key) !== 'string')

const statuses = [...new Set([
  ...Object.values(vocabulary().entities).flatMap(entity => entity.statuses.map(s => s.value)),
  ...Object.values(REGISTRY_STATUSES).flat(),
])]
const builtKeys = [
  ...statuses.map(status => `worksites.status.${status}`),
  ...ENTITIES.flatMap(entity => [`worksites.entities.${entity}`, `worksites.form.created.${entity}`, `worksites.form.bodyLabel.${entity}`]),
  ...['chantier', 'job', 'task'].map(entity => `worksites.item.editTitle.${entity}`),
  ...['chantier', 'job'].map(entity => `worksites.workList.failed.${entity}`),
  ...REGISTRIES.flatMap(r => [`worksites.registries.${r.kind}.label`, `worksites.registries.${r.kind}.description`]),
  ...TIMELINE_KINDS.map(kind => `worksites.timeline.kinds.${kind}`),
  ...ITERATION_OUTCOMES.map(outcome => `worksites.iterations.outcomes.${outcome}`),
  ...['answer', 'advice', 'won', 'lost', 'done', 'cancelled', 'cancel'].map(action => `worksites.registryActions.done.${action}`),
]

describe('the worksites words built at run time', () => {
  it('are in the English and the French catalogs', () => {
    expect(missingIn(en, builtKeys)).toEqual([])
    expect(missingIn(fr, builtKeys)).toEqual([])
  })

  it('say a status in English as the vocabulary does', () => {
    const differ = Object.values(vocabulary().entities).flatMap(entity => entity.statuses.map(s => s.value))
      .filter(status => at(en, `worksites.status.${status}`) !== statusLabel(status))
    expect(differ).toEqual([])
  })
})
