/** A switch that stops something: what the dialog asks, what the action does, and how to undo it. */
export interface SwitchAction {
  /** The question, naming what stops: "Stop new runs of Digest?" */
  title: string
  /** What stops and what goes on: "Runs in progress finish; no new run starts until you resume it." */
  description: string
  confirmLabel: string
  confirmIcon?: string
  /** The change itself (a failure is toasted with its reason, and the dialog stays open). */
  act: () => Promise<void>
  /** The toast once done. */
  done: string
  /** Where the change is reversible: the reverse route, offered as the toast's Undo. */
  undo?: { act: () => Promise<void>, done: string }
  /** After the change or its undo: refresh what the page shows. */
  after?: () => Promise<unknown> | unknown
}

/**
 * Destructive switches asked once (issue 36, Deliver 2): `ask` opens the dialog
 * (<HubSwitchConfirm :control="…" /> renders it), `confirm` makes the change and toasts it with
 * an Undo where the action is reversible. One shape for stopping an agent, deactivating a client
 * or a person:
 *   const stopping = useConfirmSwitch()
 *   stopping.ask({ title: 'Stop new runs of Digest?', description: '…', confirmLabel: 'Stop new runs', act, done: 'Stopped', undo })
 */
export function useConfirmSwitch() {
  const toast = useToast()
  const { t } = useI18n()
  const state = reactive({ open: false, busy: false, action: null as SwitchAction | null })

  function ask(action: SwitchAction): void {
    state.action = action
    state.open = true
  }

  function close(): void {
    if (!state.busy) state.open = false
  }

  async function run(work: () => Promise<void>, failed: string): Promise<boolean> {
    state.busy = true
    try {
      await work()
      return true
    }
    catch (failure) {
      toast.add({ title: failed, description: failureMessage(failure, t('base.requestFailed')), color: 'error' })
      return false
    }
    finally {
      state.busy = false
    }
  }

  async function undo(action: SwitchAction): Promise<void> {
    if (!action.undo) return
    if (await run(action.undo.act, t('base.confirmSwitch.notUndone'))) toast.add({ title: action.undo.done, color: 'success', icon: 'i-lucide-undo-2' })
    await action.after?.()
  }

  async function confirm(): Promise<void> {
    const action = state.action
    if (!action) return
    if (!await run(action.act, t('base.confirmSwitch.notChanged'))) return
    state.open = false
    toast.add({
      title: action.done,
      color: 'success',
      ...(action.undo ? { actions: [{ label: t('base.confirmSwitch.undo'), icon: 'i-lucide-undo-2', color: 'neutral' as const, variant: 'outline' as const, onClick: () => void undo(action) }] } : {}),
    })
    await action.after?.()
  }

  return { state: readonly(state), ask, close, confirm }
}

export type ConfirmSwitch = ReturnType<typeof useConfirmSwitch>
