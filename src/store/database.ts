import type { Generated } from 'kysely';

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
    name: string;
    status: string;
    expires_on: string | null;
    not_before: string | null;
    /** JSON: the token's grants, `[{id, zoneIds, permissions}]`. */
    policies: string | null;
    modified_on: string | null;
  };
  sessions: { id_hash: string; user_id: string; csrf_token: string; expires_at: string };
  zones: { id: string; name: string; user_id: string; created_at: string; status: string; verification_token: string | null };
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
  jobs: {
    id: Generated<number>;
    zone_id: string;
    dataset: string;
    kind: string;
    enabled: number;
    name: string | null;
    destination_conf: string;
    filter: string | null;
    output_options: string | null;
    logpull_options: string | null;
    frequency: string | null;
    max_upload_bytes: number | null;
    max_upload_records: number | null;
    max_upload_interval_seconds: number | null;
    last_complete: string | null;
    last_error: string | null;
    error_message: string | null;
    failing_since: string | null;
    created_at: string;
    updated_at: string;
  };
  config_changes: { seq: Generated<number>; zone_id: string; changed_at: string; token_id: string | null };
  job_counters: { job_id: number; node: string; counters: string; updated_at: string };
  audit_log: {
    seq: Generated<number>;
    id: string;
    at: string;
    action_type: string;
    action_result: number;
    actor_type: string;
    actor_id: string | null;
    actor_email: string | null;
    actor_ip: string | null;
    owner_id: string | null;
    resource_type: string;
    resource_id: string | null;
    zone_id: string | null;
    zone_name: string | null;
    old_value: string | null;
    new_value: string | null;
    metadata: string | null;
  };
  auth_failures: { key: string; window_start: string; failures: number };
  zone_retention: { zone_id: string; flag: number; updated_at: string };
  job_replays: {
    job_id: number;
    zone_id: string;
    start_ns: string;
    end_ns: string;
    status: string;
    events_read: number | string;
    exported: number | string;
    objects_written: number;
    error: string | null;
    message: string | null;
    node_id: string;
    started_at: string;
    finished_at: string | null;
    updated_at: string;
  };
  explorer_datasets: {
    id: string;
    zone_id: string;
    dataset: string;
    enabled: number;
    /** JSON array of the kept field names; null keeps every field. */
    fields: string | null;
    filter: string | null;
    deletion_protection: number;
    created_at: string;
    updated_at: string;
  };
}

/** The SQL engine under the store; migrations differ only where the engines do. */
export type Engine = 'sqlite' | 'postgres';
