/**
 * `work`, or what `late()` answers (or throws) when `ms` pass first; the timer never outlives
 * the race. Atlas's sender check throws at its deadline, memory's link expansion answers a
 * fallback.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late())
      }
      catch (error) {
        reject(error)
      }
    }, ms)
  })
  try {
    return await Promise.race([work, deadline])
  }
  finally {
    clearTimeout(timer)
  }
}
