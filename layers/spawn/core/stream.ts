// From a pseudo-terminal's byte stream to stream-JSON events, robustly: the terminal turns
// \n into \r\n, may colour or decorate lines with escape sequences, cuts lines anywhere
// between two chunks, and mixes in whatever else the program prints. Unknown event types are
// kept as they are; what is not JSON becomes a `wrapper_noise` event (counted, capped).

/** One line's worth of anything but the JSON the protocol is made of. */
export interface NoiseEvent { type: 'wrapper_noise', text: string, [key: string]: unknown }
export type StreamEvent = Record<string, unknown> & { type: string }

// CSI (ESC [ … final byte), OSC (ESC ] … BEL or ESC \), other two-byte escapes, and the C0
// controls other than tab (JSON never holds them raw: they are escaped inside strings).
// eslint-disable-next-line no-control-regex
const ANSI = /\u001B\[[0-?]*[ -/]*[@-~]|\u001B\][^\u0007\u001B]*(?:\u0007|\u001B\\)|\u001B[@-Z\\-_]|\u009B[0-?]*[ -/]*[@-~]/g
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F]/g

export function cleanTerminalLine(line: string): string {
  return line.replace(ANSI, '').replace(CONTROLS, '').trim()
}

/** Parses one cleaned line: an event when it is a JSON object with a string `type`. */
export function parseEventLine(line: string): StreamEvent | null {
  if (!line.startsWith('{') || !line.endsWith('}')) return null
  try {
    const value = JSON.parse(line) as unknown
    if (value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { type?: unknown }).type === 'string') return value as StreamEvent
  }
  catch { /* not JSON: noise */ }
  return null
}

export interface LineSplitterOptions {
  /** A line longer than this (characters) is dropped and reported as noise. */
  maxLineLength?: number
  /** At most this many noise events are emitted (the rest are only counted). */
  maxNoiseEvents?: number
  /** Noise text is cut to this length. */
  maxNoiseText?: number
}

export interface LineSplitter {
  /** Feeds a chunk; returns the complete events it finished. */
  push: (chunk: string) => Array<StreamEvent | NoiseEvent>
  /** End of stream: the last line, even without its newline. */
  end: () => Array<StreamEvent | NoiseEvent>
  stats: () => { events: number, noiseLines: number, droppedLongLines: number }
}

export function createLineSplitter(options: LineSplitterOptions = {}): LineSplitter {
  const maxLine = options.maxLineLength ?? 16 * 1024 * 1024
  const maxNoise = options.maxNoiseEvents ?? 1000
  const maxNoiseText = options.maxNoiseText ?? 2000
  let buffer = ''
  let skipping = false
  let events = 0
  let noiseLines = 0
  let dropped = 0

  const take = (raw: string, out: Array<StreamEvent | NoiseEvent>) => {
    const line = cleanTerminalLine(raw)
    if (!line) return
    const event = parseEventLine(line)
    if (event) {
      events += 1
      out.push(event)
      return
    }
    noiseLines += 1
    if (noiseLines <= maxNoise) out.push({ type: 'wrapper_noise', text: line.slice(0, maxNoiseText) })
  }

  return {
    push(chunk) {
      const out: Array<StreamEvent | NoiseEvent> = []
      let start = 0
      for (;;) {
        const newline = chunk.indexOf('\n', start)
        if (newline < 0) break
        const piece = chunk.slice(start, newline)
        start = newline + 1
        if (skipping) {
          skipping = false
          continue
        }
        take(buffer + piece, out)
        buffer = ''
      }
      if (!skipping) {
        buffer += chunk.slice(start)
        if (buffer.length > maxLine) {
          dropped += 1
          noiseLines += 1
          if (noiseLines <= maxNoise) out.push({ type: 'wrapper_noise', text: `a line longer than ${maxLine} characters was dropped`, dropped_line: true })
          buffer = ''
          skipping = true
        }
      }
      return out
    },
    end() {
      const out: Array<StreamEvent | NoiseEvent> = []
      if (!skipping && buffer) take(buffer, out)
      buffer = ''
      skipping = false
      return out
    },
    stats: () => ({ events, noiseLines, droppedLongLines: dropped }),
  }
}

export type EventKind = 'stream' | 'system' | 'tool_result' | 'assistant' | 'user' | 'result' | 'wrapper' | 'other'

export interface ClassifiedEvent {
  kind: EventKind
  /** The protocol's type/subtype, e.g. `system/init`, `stream_event/content_block_delta`. */
  subtype: string
  toolName: string | null
}

function record(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : null
}

function contentBlocks(event: StreamEvent): Array<Record<string, unknown>> {
  const content = record(event.message)?.content
  return Array.isArray(content) ? content.map(record).filter((b): b is Record<string, unknown> => b !== null) : []
}

/**
 * Sorts events into the kinds the log is sub-typed by. Stateful: it remembers the names of
 * the tools the assistant called, so that a tool result (which only carries the call's id)
 * gets its tool's name.
 */
export function createEventClassifier(): (event: StreamEvent) => ClassifiedEvent {
  const toolNames = new Map<string, string>()
  return (event) => {
    const type = event.type
    const sub = typeof event.subtype === 'string' ? event.subtype : undefined
    if (type === 'stream_event') {
      const inner = record(event.event)
      const innerType = typeof inner?.type === 'string' ? inner.type : 'unknown'
      const block = record(inner?.content_block)
      const toolName = block?.type === 'tool_use' && typeof block.name === 'string' ? block.name : null
      return { kind: 'stream', subtype: `stream_event/${innerType}`, toolName }
    }
    if (type === 'system') return { kind: 'system', subtype: `system/${sub ?? 'unknown'}`, toolName: null }
    if (type === 'assistant') {
      let toolName: string | null = null
      for (const block of contentBlocks(event)) {
        if (block.type === 'tool_use' && typeof block.name === 'string') {
          toolName = block.name
          if (typeof block.id === 'string') toolNames.set(block.id, block.name)
        }
      }
      const blockType = contentBlocks(event)[0]?.type
      return { kind: 'assistant', subtype: `assistant/${typeof blockType === 'string' ? blockType : 'message'}`, toolName }
    }
    if (type === 'user') {
      const results = contentBlocks(event).filter(block => block.type === 'tool_result')
      if (results.length > 0) {
        const id = results[0]!.tool_use_id
        return { kind: 'tool_result', subtype: results[0]!.is_error === true ? 'user/tool_result_error' : 'user/tool_result', toolName: typeof id === 'string' ? toolNames.get(id) ?? null : null }
      }
      return { kind: 'user', subtype: 'user/message', toolName: null }
    }
    // The CLI's error result keeps the subtype `success`: stored as an error, never shown as a success.
    if (type === 'result') return { kind: 'result', subtype: event.is_error === true ? 'result/error' : `result/${sub ?? 'unknown'}`, toolName: null }
    if (type.startsWith('node_pty') || type.startsWith('wrapper_')) return { kind: 'wrapper', subtype: type, toolName: null }
    return { kind: 'other', subtype: sub ? `${type}/${sub}` : type, toolName: null }
  }
}

export interface ResultFigures {
  subtype: string
  isError: boolean
  numTurns: number | null
  costUsd: number | null
  durationMs: number | null
  tokensIn: number
  tokensOut: number
  model: string | null
  errors: string[]
  text: string | null
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0
}

/** The figures of the agent's final `result` event (cost, duration, tokens, model, errors). */
export function resultFigures(event: StreamEvent): ResultFigures {
  const usage = record(event.usage)
  const models = record(event.modelUsage)
  const errors = Array.isArray(event.errors) ? event.errors.map(e => typeof e === 'string' ? e : JSON.stringify(e)) : []
  return {
    subtype: typeof event.subtype === 'string' ? event.subtype : 'unknown',
    isError: event.is_error === true,
    numTurns: typeof event.num_turns === 'number' ? event.num_turns : null,
    costUsd: typeof event.total_cost_usd === 'number' && Number.isFinite(event.total_cost_usd) ? event.total_cost_usd : null,
    durationMs: typeof event.duration_ms === 'number' ? Math.round(event.duration_ms) : null,
    tokensIn: count(usage?.input_tokens) + count(usage?.cache_creation_input_tokens) + count(usage?.cache_read_input_tokens),
    tokensOut: count(usage?.output_tokens),
    model: models ? (Object.keys(models)[0] ?? null) : null,
    errors,
    text: typeof event.result === 'string' ? event.result : null,
  }
}
