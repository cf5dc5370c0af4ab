/** A count with its noun, singular for one: "1 field", "3 fields", "0 fields". */
export function countText(n: number, singular: string, plural = `${singular}s`): string {
  return `${new Intl.NumberFormat().format(n)} ${n === 1 ? singular : plural}`;
}
