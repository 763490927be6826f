// The studio's clients (tenants): who they are, their mail domains and contacts, the repository
// and pre-production address the spawn uses, their model. Uses base and ai (the providers).
export default defineNuxtConfig({
  srcDir: '.',
})
