/**
 * What a zone's enabled Log Explorer dataset keeps of each event when it alone decides retention (the
 * zone's retention flag off; with the flag on every event is kept whole): the events its filter passes,
 * each with only its enabled fields. Compiled once per plan, like a job's filter. Pure.
 */
import type { Dataset } from '../domain/datasets/http-requests.ts';
import type { EventRecord } from '../domain/datasets/event-record.ts';
import { compileFilter, type FilterPredicate } from '../domain/filters/compile-filter.ts';
import { parseFilter, type FilterLimits } from '../domain/filters/parse-filter.ts';

/** A dataset's choice as ingest is told it: the kept fields (null: all) and the filter (null: every event). */
export interface RetainSelection {
  readonly fields: readonly string[] | null;
  readonly filter: string | null;
}

/** The compiled choice: which events are kept, and the record of a kept one. */
export interface RetainRule {
  readonly predicate: FilterPredicate;
  /** The fields kept, or undefined for all of them (the event's line is then kept as it came). */
  readonly fields: readonly string[] | undefined;
}

/** Compiles a selection; a filter that no longer parses keeps nothing (the API refuses such filters). */
export function compileRetainRule(selection: RetainSelection, dataset: Dataset, limits: FilterLimits): RetainRule {
  const filter = parseFilter(selection.filter, dataset, limits);
  return {
    predicate: filter.ok ? compileFilter(filter.value) : () => false,
    fields: selection.fields === null ? undefined : selection.fields,
  };
}

/** The record with only `fields` (those it has). */
export function keptFieldsOf(record: EventRecord, fields: readonly string[]): EventRecord {
  const kept: Record<string, unknown> = {};
  const source = record as Readonly<Record<string, unknown>>;
  for (const name of fields) {
    const value = source[name];
    if (value !== undefined) kept[name] = value;
  }
  return kept as EventRecord;
}
