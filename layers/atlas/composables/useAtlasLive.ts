// Live Atlas views: calls `onChange` whenever the inbox changes (server-sent events from
// /api/atlas/events), and falls back to polling every 15 s while the stream is down.
export function useAtlasLive(onChange: () => void) {
  const connected = ref(false)
  let source: EventSource | undefined
  let poll: ReturnType<typeof setInterval> | undefined
  let seen = ''
  onMounted(() => {
    source = new EventSource('/api/atlas/events')
    source.addEventListener('open', () => {
      connected.value = true
    })
    source.addEventListener('error', () => {
      connected.value = false
    })
    source.addEventListener('version', (event) => {
      const version = (event as MessageEvent<string>).data
      if (seen && version !== seen) onChange()
      seen = version
    })
    poll = setInterval(() => {
      if (!connected.value) onChange()
    }, 15_000)
  })
  onBeforeUnmount(() => {
    source?.close()
    if (poll) clearInterval(poll)
  })
  return { connected }
}
