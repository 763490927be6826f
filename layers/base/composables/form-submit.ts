/**
 * A form's submit: `saving` while the call runs, `problem` with the reason it was refused
 * (shown in the form, which stays open for a correction). The form clears `problem` when it
 * opens again.
 *   const { saving, problem, submit } = useFormSubmit()
 *   const save = () => submit(t('clients.form.notSaved'), async () => { await $fetch(…); open.value = false })
 */
export function useFormSubmit() {
  const saving = ref(false)
  const problem = ref<string | null>(null)

  async function submit(refused: string, act: () => Promise<void>): Promise<void> {
    saving.value = true
    problem.value = null
    try {
      await act()
    }
    catch (failure) {
      problem.value = failureMessage(failure, refused)
    }
    finally {
      saving.value = false
    }
  }

  return { saving, problem, submit }
}
