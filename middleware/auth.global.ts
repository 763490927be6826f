// The hub is private: every page but /login needs a session (the API enforces it too).
export default defineNuxtRouteMiddleware((to) => {
  const { loggedIn } = useUserSession()
  if (to.path === '/login') {
    if (loggedIn.value) return navigateTo('/hub')
    return
  }
  if (!loggedIn.value) return navigateTo({ path: '/login', query: to.path !== '/' && to.path !== '/hub' ? { redirect: to.fullPath } : {} })
})
