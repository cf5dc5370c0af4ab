/**
 * Every action the audit log records, `<resource>.<verb>`: the server records only these, and the
 * dashboard's Action filter offers them (it imports this file, which therefore imports nothing).
 */
export const auditActions = [
  'session.create',
  'session.delete',
  'zone.create',
  'zone.activate',
  'token.create',
  'token.update',
  'token.roll',
  'token.delete',
  'ruleset.create',
  'ruleset.update',
  'ruleset.delete',
  'ruleset.version.delete',
  'rule.create',
  'rule.update',
  'rule.delete',
  'job.create',
  'job.update',
  'job.enable',
  'job.disable',
  'job.delete',
  'job.replay',
  'job.replay.cancel',
  'ownership.challenge',
  'retention.update',
  'live_session.create',
  'explorer_dataset.create',
  'explorer_dataset.update',
  'explorer_dataset.delete',
] as const;

/** One of `auditActions`. */
export type AuditAction = (typeof auditActions)[number];
