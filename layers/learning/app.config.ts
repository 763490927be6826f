// The learning layer's buttons on pages of lower layers: they name it here (a global
// component) instead of the lower page naming a learning component.
export default defineAppConfig({
  worksites: { projectActions: ['LearningDebriefButton'] },
})
