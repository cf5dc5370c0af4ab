/** The tables as Kysely sees them. Booleans are stored as 0/1 and JSON as text, the same on both engines. */
export interface Database {
  settings: { key: string; value: string };
  users: { id: string; email: string; password_hash: string | null; api_key_hash: string; created_at: string };
  api_tokens: {
    id: string;
    user_id: string;
    token_hash: string;
    zone_ids: string;
    permissions: string;
    created_at: string;
  };
  sessions: { id_hash: string; user_id: string; csrf_token: string; expires_at: string };
  zones: { id: string; name: string; user_id: string; created_at: string };
  rulesets: {
    id: string;
    zone_id: string;
    kind: string;
    phase: string;
    name: string;
    description: string;
    version: number;
    last_updated: string;
    rules: string;
  };
  ruleset_versions: {
    ruleset_id: string;
    zone_id: string;
    version: number;
    name: string;
    description: string;
    last_updated: string;
    rules: string;
  };
}

/** The SQL engine under the store; migrations differ only where the engines do. */
export type Engine = 'sqlite' | 'postgres';
