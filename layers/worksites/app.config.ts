// Higher layers add a project's actions (global components given its projectId) by name.
export default defineAppConfig({
  worksites: { projectActions: [] as string[] },
})
