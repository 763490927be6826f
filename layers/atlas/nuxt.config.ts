// The atlas domain: core/ (framework-free logic), server/api/ (thin routes), pages/hub/atlas/.
export default defineNuxtConfig({
  srcDir: '.',
})
