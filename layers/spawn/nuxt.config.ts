// The spawn engine: core/ (framework-free logic), server/api/atlas/spawns/ (thin routes, their
// URLs unchanged since the engine left atlas), pages/hub/atlas/spawns/.
export default defineNuxtConfig({
  srcDir: '.',
})
