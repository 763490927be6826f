// The memory domain: core/ (framework-free logic), server/api/ (thin routes), pages/hub/memory/.
export default defineNuxtConfig({
  srcDir: '.',
})
