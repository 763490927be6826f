// Live Atlas views: calls `onChange` whenever the inbox changes (server-sent events from
// /api/atlas/events), and falls back to polling every 15 s while the stream is down.
export function useAtlasLive(onChange: () => void) {
  return useLiveVersion('/api/atlas/events', onChange)
}
