// atlas-collect [--dry-run] [--json]
// Every minute: polls the Atlas mailbox (IMAP), stores new messages, then scans their
// attachments (ClamAV), reads their images (OCR) and classifies them (AI facade).
// Exit codes: 0 the cycle ran (recorded `not configured` when no mailbox is set); 1 the mailbox could not be polled (what was stored
// earlier
// was still processed); 2 bad configuration (the variable and the fix are named).
import { parseArgs } from 'node:util'
import { defineAutomate } from '#layers/health/core/automate'
import { createAiFacade } from '#layers/ai/core/facade'
import { collect } from '#layers/atlas/core/collector'
import { facadeEmbedder } from '#layers/memory/core/vectors/embedder'
import { AtlasConfigError, readAtlasConfig } from '#layers/atlas/core/config'

export default defineAutomate({
  name: 'atlas-collect',
  description: 'Atlas inbox: IMAP collection, antivirus, OCR of screenshots, intent classification and the work record.',
  scope: 'Atlas mailbox → atlas_messages, atlas_attachments, atlas_inbox, atlas_audit, work_*; AI facade (atlas_classify)',
  dryRun: true,
  async run(ctx) {
    const { values } = parseArgs({ args: ctx.args, options: { 'dry-run': { type: 'boolean' }, 'json': { type: 'boolean' } } })
    let config
    try {
      config = readAtlasConfig(process.env)
    }
    catch (error) {
      if (error instanceof AtlasConfigError) {
        ctx.log(`[atlas-collect] configuration: ${error.message}`)
        return 2
      }
      throw error
    }
    const ai = createAiFacade({ env: process.env, db: ctx.db, log: line => ctx.log(line) })
    // The recall before a work record's creation embeds its query under the recall's ledger label.
    const embedder = facadeEmbedder(ai, { feature: 'memory_recall' })
    const report = await collect({ db: ctx.db, ai, config, log: ctx.log, signal: ctx.signal, embedder }, { dryRun: values['dry-run'] })
    if (report.imap === 'not_configured') {
      ctx.notConfigured('ATLAS_IMAP_HOST', 'no mailbox to poll, so no mail comes in (with ATLAS_IMAP_USER and ATLAS_IMAP_PASSWORD); test messages pasted in the hub are still processed')
    }
    await ai.flush()
    if (values.json) {
      ctx.log(JSON.stringify(report))
    }
    else {
      const p = report.pipeline
      ctx.log(`[atlas-collect] mailbox ${report.mailbox ?? '(none)'}: ${report.unseen} unseen, ${report.ingested} stored, ${report.quarantined} quarantined, ${report.duplicates} already stored`
        + `; pipeline: ${p.classified} classified, ${p.blocked} blocked unsafe, ${p.failed} classification failed${p.stale ? `, ${p.stale} changed meanwhile` : ''}`)
    }
    return report.imap === 'failed' ? 1 : 0
  },
})
