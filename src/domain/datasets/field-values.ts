/**
 * Checks of one event value against its field's type (string, int, string[], int[], object of numbers),
 * within the ingest limits. Each returns undefined when the value is fine, so the common path allocates
 * nothing, and otherwise the problem as one sentence naming the field.
 */
import { describeJson, quote } from '../filters/filter-problem.ts';
import type { IngestLimits } from './ingest-limits.ts';

/** Checks a `string` field's value: a string of at most `limits.maxStringLength` characters. */
export function checkString(value: unknown, name: string, limits: IngestLimits): string | undefined {
  if (typeof value !== 'string') return `"${name}" must be a string, got ${describeJson(value)}`;
  if (value.length > limits.maxStringLength) return `"${name}" is longer than ${limits.maxStringLength} characters`;
  return undefined;
}

/** Checks an `int` field's value: an integer that a double holds exactly. */
export function checkInt(value: unknown, name: string): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return undefined;
  return `"${name}" ${intProblem(value)}`;
}

function intProblem(value: unknown): string {
  if (typeof value === 'number' && Number.isInteger(value)) {
    return `must be an integer from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, got ${String(value)}`;
  }
  return `must be an integer, got ${describeJson(value)}`;
}

/** Checks a `string[]` field's value: an array of at most `limits.maxArrayItems` strings, each within `limits.maxStringLength`. */
export function checkStringArray(value: unknown, name: string, limits: IngestLimits): string | undefined {
  if (!Array.isArray(value)) return `"${name}" must be an array of strings, got ${describeJson(value)}`;
  if (value.length > limits.maxArrayItems) return `"${name}" has more than ${limits.maxArrayItems} items`;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'string') return `"${name}"[${i}] must be a string, got ${describeJson(item)}`;
    if (item.length > limits.maxStringLength) return `"${name}"[${i}] is longer than ${limits.maxStringLength} characters`;
  }
  return undefined;
}

/** Checks an `int[]` field's value: an array of at most `limits.maxArrayItems` integers that a double holds exactly. */
export function checkIntArray(value: unknown, name: string, limits: IngestLimits): string | undefined {
  if (!Array.isArray(value)) return `"${name}" must be an array of integers, got ${describeJson(value)}`;
  if (value.length > limits.maxArrayItems) return `"${name}" has more than ${limits.maxArrayItems} items`;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (!(typeof item === 'number' && Number.isSafeInteger(item))) return `"${name}"[${i}] ${intProblem(item)}`;
  }
  return undefined;
}

/** Checks an `object` field's value (`JA4Signals`): an object of finite numbers, its keys within the limits. */
export function checkNumberObject(value: unknown, name: string, limits: IngestLimits): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `"${name}" must be an object of numbers, got ${describeJson(value)}`;
  }
  const object = value as Readonly<Record<string, unknown>>;
  const keys = Object.keys(object);
  if (keys.length > limits.maxObjectKeys) return `"${name}" has more than ${limits.maxObjectKeys} keys`;
  for (const key of keys) {
    if (key.length > limits.maxObjectKeyLength) {
      return `"${name}" key ${quote(key)} is longer than ${limits.maxObjectKeyLength} characters`;
    }
    const item = object[key];
    if (!(typeof item === 'number' && Number.isFinite(item))) {
      return `"${name}"[${quote(key)}] must be a finite number, got ${describeJson(item)}`;
    }
  }
  return undefined;
}
