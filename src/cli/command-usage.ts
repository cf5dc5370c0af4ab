/**
 * What `logexport --help` and `logexport help <command>` print: each command's synopsis, and a few lines on
 * what it does and what it prints. docs/configuration.md ("The command line") says the same at more length.
 */

/** One command of the command line. */
export interface CommandUsage {
  /** The word after `logexport` (`serve`, `users`, …). */
  readonly name: string;
  readonly synopsis: readonly string[];
  readonly about: string;
}

export const commandUsages: readonly CommandUsage[] = [
  {
    name: 'serve',
    synopsis: ['logexport serve [--port N] [--host H] [--data-dir DIR] [--tail FORMAT:PATH;…] …'],
    about:
      'Runs the service until SIGTERM or SIGINT: the API at /client/v4, ingest at /ingest, the dashboard at /, and the\n' +
      'job runners. Every LOGEXPORT_* setting can be given as a flag instead: LOGEXPORT_SHUTDOWN_TIMEOUT as\n' +
      '--shutdown-timeout 30s. Defaults: http://127.0.0.1:8787, data in ./data (docs/configuration.md).',
  },
  {
    name: 'users',
    synopsis: ['logexport users create --email E [--password P]'],
    about: 'Creates a user and prints {"email","api_key"}: the global API key for X-Auth-Email + X-Auth-Key. With a\npassword (8 characters or more) the user can also sign in to the dashboard.',
  },
  {
    name: 'zones',
    synopsis: ['logexport zones create --email E --name example.com'],
    about: 'Creates a zone (a domain) for a user and prints {"id","name"}: the id is the ZONE_ID of every API path.',
  },
  {
    name: 'tokens',
    synopsis: [
      'logexport tokens create --email E --zone ZONE_ID_OR_NAME --permissions logs:edit[,logs:read,logs:ingest] [--name N]',
      'logexport tokens list --email E',
      'logexport tokens revoke --email E --id TOKEN_ID',
    ],
    about:
      'create prints {"token"} (send it as Authorization: Bearer <token>); list prints the user\'s API tokens, never their\nvalues; revoke refuses a token at once on every node and closes the live viewers it opened.',
  },
  {
    name: 'secrets',
    synopsis: ['logexport secrets rotate [--new-secret S]   (or LOGEXPORT_NEW_SECRET; the current one is LOGEXPORT_SECRET)'],
    about: 'Re-encrypts the stored destination credentials under a new secret. Stop every node first, then start them\nwith LOGEXPORT_SECRET set to the new secret (docs/security.md).',
  },
  {
    name: 'sources',
    synopsis: ['logexport sources [--data-dir DIR] [--tail FORMAT:PATH;…]'],
    about:
      "Prints how events came in, from the data directory of a running or a stopped node: each tailed file's\n" +
      'position and counts, and per zone and way in (http, otlp, tail) the events accepted, dropped (no_job: no\n' +
      'enabled job exports them) and rejected by reason (docs/sources.md); and the retained logs\' hot, compacting\n' +
      'and quarantined segments (docs/retention.md).',
  },
  {
    name: 'doctor',
    synopsis: ['logexport doctor [--data-dir DIR] [--port N] …   (the same settings as serve)'],
    about:
      'Checks what keeps a node from working and says how to fix each: the data directory and export root\n' +
      'writable, the port free, PostgreSQL and NATS reachable when configured, the tailed files readable, zones\n' +
      'whose events no enabled job exports, secrets set when listening beyond loopback. Exits 1 when it found a problem.',
  },
  {
    name: 'help',
    synopsis: ['logexport help [COMMAND]', 'logexport --help', 'logexport COMMAND --help'],
    about: 'Prints this help, or one command’s.',
  },
];

/** The help for every command. */
export function fullUsage(): string {
  const lines = ['usage:', ...commandUsages.flatMap((c) => c.synopsis.map((s) => `  ${s}`))];
  lines.push(
    '',
    'Commands other than serve print one JSON object on stdout and exit 0; a mistake prints one line on stderr and',
    'exits 2 (a usage mistake) or 1. They read the same settings as serve: run them with the same LOGEXPORT_DATA_DIR',
    'or LOGEXPORT_DATABASE_URL. `logexport help COMMAND` says more about one command.',
  );
  return lines.join('\n');
}

/** The help for one command; undefined for a word that is no command. */
export function commandUsage(name: string): string | undefined {
  const usage = commandUsages.find((c) => c.name === name);
  if (usage === undefined) return undefined;
  return ['usage:', ...usage.synopsis.map((s) => `  ${s}`), '', usage.about].join('\n');
}
