// The worksites domain: core/ (framework-free logic), server/api/ (thin routes), pages/hub/worksites/.
export default defineNuxtConfig({
  srcDir: '.',
})
