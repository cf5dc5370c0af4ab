/**
 * `Promise.all` over a list with at most `limit` calls under way at once, answers in the list's order: for
 * work that is faster side by side (file system calls, object store requests) but must not open one
 * request per item of a long list. Pure of I/O itself.
 */
export async function boundedMap<T, R>(items: readonly T[], limit: number, call: (item: T) => Promise<R>): Promise<R[]> {
  const answers = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const at = next++;
      answers[at] = await call(items[at] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return answers;
}
