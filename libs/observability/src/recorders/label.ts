/**
 * Clamps a label value to a short identifier. Label values come from bounded sets (config names,
 * code unions), and this is the backstop that keeps a bug from turning free text into series.
 */
export function label(value: string | undefined | null): string {
  if (!value) return 'none';
  return /^[A-Za-z0-9_.:/-]{1,64}$/.test(value) ? value : 'other';
}
