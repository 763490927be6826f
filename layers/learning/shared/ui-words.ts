// The six destinations of a suggestion (§4.2), in the order the modify form lists them; their
// words are in i18n/locales under learning.destinations.
import type { LearnDestination } from '#db/schema/learn'

export const DESTINATIONS: readonly LearnDestination[] = ['directive', 'hooks', 'reflex', 'inbox', 'skill', 'project']
