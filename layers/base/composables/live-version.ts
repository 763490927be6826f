// Live views: calls `onChange` whenever the server-sent `version` events of `url` change
// (see layers/base/server/utils/version-stream.ts), and falls back to polling every 15 s while the stream is down.
export function useLiveVersion(url: string, onChange: () => void) {
  const connected = ref(false)
  let source: EventSource | undefined
  let poll: ReturnType<typeof setInterval> | undefined
  let seen = ''
  onMounted(() => {
    source = new EventSource(url)
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
