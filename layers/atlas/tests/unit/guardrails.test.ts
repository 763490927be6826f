import { describe, expect, it } from 'vitest'
import { applyGuardrails, checkAnswer, isForwardedAtlasSummary } from '../../core/classify/guardrails'
import { BODY_LABEL, BODY_LIMIT, buildClassificationPrompt, DATA_DESCRIPTION, OCR_LABEL, SYSTEM_PROMPT } from '../../core/classify/prompt'
import { untrustedMarkers, untrustedWarning } from '#layers/spawn/core/untrusted'
import { INTENTS } from '#layers/spawn/core/vocabulary'

const context = { fromAddress: 'someone@elsewhere.example', attachmentCount: 0, founderEmails: ['founder@studio.example'], senderAuthenticated: true, tenant: null }

describe('strict enumeration and confidence range', () => {
  it('accepts exactly the six intents with a confidence in [0, 1]', () => {
    for (const intent of INTENTS) {
      expect(checkAnswer({ intent, confidence: 0.8, reasoning: 'ok' })).toEqual({ ok: true, answer: { intent, confidence: 0.8, reasoning: 'ok' } })
    }
    expect(checkAnswer({ intent: 'run', confidence: 0 })).toMatchObject({ ok: true })
    expect(checkAnswer({ intent: 'run', confidence: 1 })).toMatchObject({ ok: true })
  })

  it.each([
    [{ intent: 'urgent', confidence: 0.9 }, /not one of the six/],
    [{ intent: 'RUN', confidence: 0.9 }, /not one of the six/],
    [{ intent: ' run', confidence: 0.9 }, /not one of the six/],
    [{ intent: 'negotiation', confidence: 0.9 }, /not one of the six/],
    [{ intent: ['run'], confidence: 0.9 }, /not one of the six/],
    [{ confidence: 0.9 }, /not one of the six/],
    [{ intent: 'run', confidence: 1.01 }, /outside \[0, 1\]/],
    [{ intent: 'run', confidence: -0.1 }, /outside \[0, 1\]/],
    [{ intent: 'run', confidence: 95 }, /outside \[0, 1\]/],
    [{ intent: 'run', confidence: '0.9' }, /not a number/],
    [{ intent: 'run', confidence: null }, /not a number/],
    [{ intent: 'run' }, /not a number/],
    [['run', 0.9], /not a JSON object/],
    ['run', /not a JSON object/],
    [null, /not a JSON object/],
  ])('refuses %j', (answer, reason) => {
    const checked = checkAnswer(answer)
    expect(checked.ok).toBe(false)
    if (!checked.ok) expect(checked.reason).toMatch(reason)
  })
})

describe('guardrails', () => {
  it('keeps a confident answer as it is', () => {
    const result = applyGuardrails({ intent: 'chantier', confidence: 0.92, reasoning: 'a redesign' }, context)
    expect(result).toMatchObject({ intent: 'chantier', confidence: 0.92, audits: [], forcedNoise: false, uncertain: false })
  })

  it('forces noise under 0.5 and records the uncertainty', () => {
    const result = applyGuardrails({ intent: 'run', confidence: 0.42, reasoning: 'maybe' }, context)
    expect(result.intent).toBe('noise')
    expect(result.confidence).toBe(0.42)
    expect(result.modelIntent).toBe('run')
    expect(result.forcedNoise).toBe(true)
    expect(result.audits.map(a => a.action)).toEqual(['classification_uncertain'])
  })

  it('writes classification_uncertain between 0.5 and 0.7 but keeps the intent', () => {
    const result = applyGuardrails({ intent: 'question', confidence: 0.6, reasoning: '' }, context)
    expect(result.intent).toBe('question')
    expect(result.audits).toEqual([{ action: 'classification_uncertain', details: expect.objectContaining({ confidence: 0.6, threshold: 0.7 }) }])
    expect(applyGuardrails({ intent: 'question', confidence: 0.7, reasoning: '' }, context).audits).toEqual([])
    expect(applyGuardrails({ intent: 'run', confidence: 0.5, reasoning: '' }, context).intent).toBe('run')
  })

  it('turns noise from the founder with attachments into a question', () => {
    const founder = { ...context, fromAddress: 'Founder@Studio.example', attachmentCount: 2 }
    const result = applyGuardrails({ intent: 'noise', confidence: 0.95, reasoning: 'looks like nothing' }, founder)
    expect(result.intent).toBe('question')
    expect(result.audits.map(a => a.action)).toEqual(['noise_override_founder_attachment'])
    // Also when noise was forced by a low confidence.
    expect(applyGuardrails({ intent: 'run', confidence: 0.3, reasoning: '' }, founder).intent).toBe('question')
    // Not without attachments, not from someone else.
    expect(applyGuardrails({ intent: 'noise', confidence: 0.95, reasoning: '' }, { ...founder, attachmentCount: 0 }).intent).toBe('noise')
    expect(applyGuardrails({ intent: 'noise', confidence: 0.95, reasoning: '' }, { ...founder, fromAddress: 'other@studio.example' }).intent).toBe('noise')
    // Not when the founder's address was not authenticated: privileges follow authentication.
    expect(applyGuardrails({ intent: 'noise', confidence: 0.95, reasoning: '' }, { ...founder, senderAuthenticated: false }).intent).toBe('noise')
  })

  it('downgrades negociation and conseil from an active tenant to a run for that tenant', () => {
    const tenant = { id: '3f1d2c4b-0000-4000-8000-000000000001', slug: 'acme' }
    for (const intent of ['negociation', 'conseil'] as const) {
      const result = applyGuardrails({ intent, confidence: 0.9, reasoning: '' }, { ...context, tenant })
      expect(result.intent).toBe('run')
      expect(result.tenantId).toBe(tenant.id)
      expect(result.audits).toEqual([{ action: 'existing_client_guard', details: expect.objectContaining({ tenant: 'acme', downgradedFrom: intent }) }])
    }
    expect(applyGuardrails({ intent: 'negociation', confidence: 0.9, reasoning: '' }, context).intent).toBe('negociation')
    expect(applyGuardrails({ intent: 'question', confidence: 0.9, reasoning: '' }, { ...context, tenant }).intent).toBe('question')
  })

  it('recognises a forwarded Atlas summary by its subject', () => {
    expect(isForwardedAtlasSummary('Fwd: [Atlas] Run #12 done')).toBe(true)
    expect(isForwardedAtlasSummary('FWD:[atlas] recap')).toBe(true)
    expect(isForwardedAtlasSummary('TR: [Atlas] recap')).toBe(true)
    expect(isForwardedAtlasSummary('Re: [Atlas] recap')).toBe(false)
    expect(isForwardedAtlasSummary('Fwd: Atlas recap')).toBe(false)
    expect(isForwardedAtlasSummary('[Atlas] Fwd: recap')).toBe(false)
  })
})

describe('the untrusted block of the classification prompt', () => {
  const markers = untrustedMarkers('0123456789abcdef01234567')
  const between = (prompt: string) => prompt.slice(prompt.indexOf(`\n${markers.begin}\n`) + markers.begin.length + 2, prompt.indexOf(`\n${markers.end}`))

  it('puts the warning first, then everything from the mail inside the block: sender, subject, attachment names, body, OCR text', () => {
    const prompt = buildClassificationPrompt({ from: 'a@b.example', fromName: 'Alice', subject: 'Bug', attachments: [{ filename: 'shot.png', contentType: 'image/png' }], body: 'Le site est en panne.', ocrText: 'Erreur 502', senderAuth: 'pass (b.example)' }, markers)
    const warning = prompt.indexOf(untrustedWarning(markers, DATA_DESCRIPTION))
    expect(warning).toBeGreaterThan(0)
    expect(prompt.indexOf(`\n${markers.begin}\n`)).toBeGreaterThan(warning)
    const inside = between(prompt)
    expect(inside).toBe(['Sender: Alice <a@b.example>', 'Subject: Bug', 'Attachments: shot.png (image/png)', BODY_LABEL, 'Le site est en panne.', OCR_LABEL, 'Erreur 502'].join('\n'))
    // Above the warning, only what the hub itself knows.
    const above = prompt.slice(0, warning)
    expect(above).toBe('Classify the email below.\nSender authentication (verified by the hub): pass (b.example)\n\n')
    expect(SYSTEM_PROMPT).toContain('"intent"')
    for (const intent of INTENTS) expect(SYSTEM_PROMPT).toContain(`- ${intent}:`)
  })

  it('draws new delimiters for each request', () => {
    const input = { from: 'a@b.example', subject: 'Bug', attachments: [], body: 'x' }
    const first = buildClassificationPrompt(input)
    const second = buildClassificationPrompt(input)
    const nonce = (prompt: string) => /<<<UNTRUSTED_DATA_BEGIN_([0-9a-f]{24})>>>/.exec(prompt)?.[1]
    expect(nonce(first)).toBeDefined()
    expect(nonce(first)).not.toBe(nonce(second))
  })

  it('cuts the body to 8,000 characters and leaves out an empty OCR part', () => {
    const prompt = buildClassificationPrompt({ from: null, subject: '', attachments: [], body: 'x'.repeat(20_000) }, markers)
    expect(between(prompt).split(`${BODY_LABEL}\n`)[1]).toHaveLength(BODY_LIMIT)
    expect(prompt).not.toContain(OCR_LABEL)
    expect(between(buildClassificationPrompt({ from: null, subject: '', attachments: [], body: '' }, markers))).toMatch(/Body:\n\(empty body\)$/)
  })
})
