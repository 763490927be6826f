// The hub is private: every page but /login and the one-time link pages (/welcome/<token>,
// /reset/<token>: the token is the credential) needs a session (the API enforces it too).
export default defineNuxtRouteMiddleware((to) => {
  const { loggedIn } = useUserSession()
  if (/^\/(?:welcome|reset)\/[^/]+$/.test(to.path)) return
  if (to.path === '/login') {
    if (loggedIn.value) return navigateTo('/hub')
    return
  }
  if (!loggedIn.value) return navigateTo({ path: '/login', query: to.path !== '/' && to.path !== '/hub' ? { redirect: to.fullPath } : {} })
})
