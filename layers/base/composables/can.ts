import { roleMayCall, type Route } from '~~/shared/access'

/**
 * Whether the signed-in person's role may call a route, read from the table the server enforces
 * (shared/access.ts), so a page shows a write control only to those its route lets through.
 * A control that writes names the route it calls in `data-write`, and its guard asks for it:
 *   const can = useCan()
 *   <UButton v-if="can('POST /api/skills')" data-write="POST /api/skills" label="New skill" />
 * (tests/unit/write-controls.test.ts holds every `data-write` control to that). A route that
 * also checks ownership or a share level still has the last word; the page adds that condition.
 */
export function useCan(): (route: Route) => boolean {
  const { user } = useUserSession()
  return (route: Route) => roleMayCall(user.value?.role, route)
}
