// A run's status in the page's language (succeeded, awaiting approval…); a status the catalog
// does not name yet is shown as stored, its underscore a space.
const RUN_STATUSES = new Set(['running', 'awaiting_approval', 'succeeded', 'failed', 'stopped'])

export function useRunStatusName() {
  const { t } = useI18n()
  return (status: string) => (RUN_STATUSES.has(status) ? t(`agents.runStatus.${status}`) : status.replace('_', ' '))
}
