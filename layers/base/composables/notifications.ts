import type { HubNotification } from '~~/server/core/notifications'

/** Whether the notifications slideover is open (the bell in a page's header opens it). */
export function useNotificationsOpen() {
  return useState('hub-notifications-open', () => false)
}

/** The notifications, fetched once for the bell's count and the slideover. */
export function useHubNotifications() {
  return useFetch<HubNotification[]>('/api/notifications', { key: 'hub-notifications', default: () => [], server: false })
}
