import withNuxt from './.nuxt/eslint.config.mjs'

export default withNuxt({
  ignores: ['.data/**', '.output/**', 'tests/.tmp/**', 'bench/results.json', 'db/migrations/meta/**'],
})
