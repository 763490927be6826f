/** Whether the signed-in person may change things (operators and founders; viewers read). */
export function useCanOperate() {
  const { user } = useUserSession()
  return computed(() => user.value?.role === 'operator' || user.value?.role === 'founder')
}
