// The application's wiring, above every domain: the agent engine's ports, the webhook route and the ports the
// spawn engine asks of atlas.
export default defineNuxtConfig({
  srcDir: '.',
})
