import type { Ref } from 'vue'

/**
 * What a fetch last returned without error. Nuxt resets a fetch's data to its default when a
 * refresh fails; on a live page that would blank what the reader (or typist) is looking at,
 * so a failed refresh keeps the last good value and its error is shown beside it.
 */
export function useLastGood<T>(data: Ref<T>, error: Ref<unknown>): Ref<T> {
  const kept = shallowRef(data.value) as Ref<T>
  watch(data, (value) => {
    if (!error.value) kept.value = value
  })
  return kept
}
