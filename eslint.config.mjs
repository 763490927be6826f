import withNuxt from './.nuxt/eslint.config.mjs'

// Nuxt's stylistic rules (nuxt.config: eslint.config.stylistic), lines of 140 characters at
// most, strings, template literals, URLs, regular expressions and HTML attribute values
// excepted: splitting those would hurt reading and grep more than a long line does. The two
// rules that move an element's text onto lines of its own stay off: they add spaces to the
// rendered text nodes, which is a change of output, not of style.
const LINE = { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true }

export default withNuxt({
  ignores: ['.data/**', '.output/**', 'tests/.tmp/**', 'bench/results.json', 'db/migrations/meta/**'],
}, {
  files: ['**/*.ts', '**/*.mts', '**/*.mjs', '**/*.js'],
  rules: { '@stylistic/max-len': ['error', LINE] },
}, {
  files: ['**/*.vue'],
  rules: {
    'vue/max-len': ['error', { ...LINE, ignoreHTMLAttributeValues: true }],
    'vue/singleline-html-element-content-newline': 'off',
    'vue/multiline-html-element-content-newline': 'off',
  },
})
