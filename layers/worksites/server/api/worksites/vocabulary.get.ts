import { vocabulary } from '#layers/worksites/core/vocabulary'

// Any signed-in role: the statuses, transitions, scopes and outcomes of the worksites (one place: core/vocabulary.ts).
export default defineEventHandler(() => vocabulary())
