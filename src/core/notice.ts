/**
 * Notices: what a successful answer says in its `messages` (`{code, message}`), when the request worked but
 * the client should know something about what happened to it. Codes are stable; `docs/errors.md`
 * ("Notices") lists the same entries and test/core/notice.test.ts keeps the two equal.
 */
export const noticeCatalogue = {
  noEnabledJob: { code: 12100, when: 'events were accepted and checked, but no enabled job of their zone exports them, so they were dropped' },
  sqlRowsCut: { code: 14100, when: 'a Log Explorer SQL answer held more rows than LOGEXPORT_SQL_MAX_ROWS; the rest were cut (result_info.truncated is true)' },
} as const;

export type NoticeKind = keyof typeof noticeCatalogue;

/** One entry of an answer's `messages`. */
export interface Notice {
  readonly code: number;
  readonly message: string;
}

/**
 * The notice for events dropped because no enabled job exports their zone's events. `what` names the
 * events as the client sent them (`events`, `log records`); `zone` names the zone when an answer covers several.
 */
export function noEnabledJobNotice(count: number, what: 'events' | 'log records' = 'events', zone?: string): Notice {
  const noun = count === 1 ? what.replace(/s$/, '') : what;
  const whose = zone === undefined ? "this zone's events" : `the events of ${zone}`;
  return {
    code: noticeCatalogue.noEnabledJob.code,
    message:
      `no enabled job exports ${whose}: ${count} ${noun} ${count === 1 ? 'was' : 'were'} checked and dropped ` +
      '(new jobs start disabled: enable one with PUT …/logexport/jobs/{job_id} {"enabled": true}, or in the dashboard)',
  };
}

/** The notice of a Log Explorer answer cut at `maxRows` rows. */
export function sqlRowsCutNotice(maxRows: number): Notice {
  return {
    code: noticeCatalogue.sqlRowsCut.code,
    message: `the answer was cut at ${maxRows} rows (LOGEXPORT_SQL_MAX_ROWS): aggregate, narrow the query with WHERE, or add a LIMIT`,
  };
}
