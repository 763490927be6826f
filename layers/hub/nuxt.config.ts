// The application's wiring, above every domain: the agent engine's ports and the ports the
// spawn engine asks of atlas. No page, no route of its own; server/utils/ for the hub's routes.
export default defineNuxtConfig({
  srcDir: '.',
})
