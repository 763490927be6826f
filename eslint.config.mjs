import withNuxt from './.nuxt/eslint.config.mjs'

export default withNuxt({
  ignores: ['.data/**', '.output/**', 'bench/results.json', 'db/migrations/meta/**'],
})
