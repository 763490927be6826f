import { budgetSubjectExists, setBudget } from '#layers/ai/core/budgets'
import { BudgetBody } from '#layers/ai/core/schemas'

// Founder only (shared/access.ts): sets a person's or an agent's monthly budget (both limits empty removes it), audited.
export default defineEventHandler(async (event) => {
  const edit = validInput(BudgetBody, await readBody(event).catch(() => undefined))
  const db = await useDb()
  if (!await budgetSubjectExists(db, edit.kind, edit.subject)) {
    throw createError({ statusCode: 404, statusMessage: `no ${edit.kind} ${edit.subject}`, data: { code: 'not_found', message: `no ${edit.kind} ${edit.subject}` } })
  }
  return { budget: await setBudget(db, edit, currentUser(event).email) }
})
