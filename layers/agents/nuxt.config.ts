// The agents domain: core/ (framework-free logic), server/api/ (thin routes), pages/hub/agents/.
export default defineNuxtConfig({
  srcDir: '.',
})
