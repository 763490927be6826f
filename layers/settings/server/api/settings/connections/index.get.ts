import { describeConnections } from '#layers/settings/core/describe'
import { scrubberFor } from '#layers/settings/core/probes/words'
import type { MessageValues } from '#layers/settings/core/schemas'

// Any role (a read): each connection's configuration, secrets as "set" / "not set".
export default defineEventHandler(() => {
  const scrub = scrubberFor(process.env, [process.env.ATLAS_IMAP_PASSWORD, process.env.ATLAS_SMTP_PASSWORD])
  const scrubValues = (values: MessageValues | undefined) => values && Object.fromEntries(Object.entries(values).map(([name, value]) => [name, typeof value === 'string' ? scrub(value) : value]))
  const items = describeConnections(process.env, useAiFacade().providers())
  // Belt and braces: a value read from the environment never carries a secret out.
  return {
    items: items.map(item => ({
      ...item,
      note: scrub(item.note),
      noteValues: scrubValues(item.noteValues),
      fields: item.fields.map(field => ({ ...field, value: scrub(field.value), valueValues: scrubValues(field.valueValues) })),
    })),
  }
})
