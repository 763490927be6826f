// The base layer: what every layer may use (shared hub components and composables, the
// database and session server utilities, request and stream helpers). It uses no other layer.
export default defineNuxtConfig({
  srcDir: '.',
})
