// Provider status: configured or not, where requests go, cooldowns — never a key.
export default defineEventHandler(() => useAiFacade().providers())
