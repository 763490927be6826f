// The deploy commands' names the client form offers (never the commands: they stay on the machine).
export default defineEventHandler(() => {
  return deployChoices()
})
