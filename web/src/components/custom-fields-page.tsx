import { useEffect, useState } from 'preact/hooks';
import { messagesOf, type ApiClient } from '../api/api-client.ts';
import type { Rule, Ruleset } from '../api/ruleset.ts';
import type { Zone } from '../api/zone.ts';
import { customFieldTypeLabel, listCustomFields, rulesWithField, rulesWithoutField, type CustomField, type CustomFieldList } from '../model/custom-field.ts';
import { CustomFieldForm } from './custom-field-form.tsx';

const entrypointMissingCode = 10003;

/** The zone's custom fields: a table of what is configured, and the editor that adds and removes them. */
export function CustomFieldsPage(props: { readonly api: ApiClient; readonly zone: Zone }) {
  const path = `/zones/${props.zone.id}/rulesets/phases/http_log_custom_fields/entrypoint`;
  // undefined: loading; null: the zone has no ruleset for the phase yet.
  const [ruleset, setRuleset] = useState<Ruleset | null | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | undefined>(undefined);
  const [editing, setEditing] = useState(false);
  const [adding, setAdding] = useState(false);
  const [status, setStatus] = useState('');
  const [removeError, setRemoveError] = useState<string | undefined>(undefined);

  useEffect(() => {
    void props.api.get<Ruleset>(path).then((answer) => {
      if (answer.ok) setRuleset(answer.result);
      else if (answer.errors.some((e) => e.code === entrypointMissingCode)) setRuleset(null);
      else setLoadError(messagesOf(answer.errors));
    });
  }, [path]);

  const rules: readonly Rule[] = ruleset?.rules ?? [];
  const fields = listCustomFields(rules);

  /** Writes the rules; the entry point is created by this PUT when the zone has none yet. */
  const save = async (next: readonly Rule[]) => {
    const answer = await props.api.send<Ruleset>('PUT', path, { rules: next });
    if (answer.ok) setRuleset(answer.result);
    return answer;
  };

  const add = async (field: { list: CustomFieldList; name: string }) => {
    const answer = await save(rulesWithField(rules, field));
    if (answer.ok) {
      setAdding(false);
      setStatus(`Added ${customFieldTypeLabel(field.list)} ${field.name}.`);
      return undefined;
    }
    return messagesOf(answer.errors);
  };

  const remove = async (field: CustomField) => {
    setRemoveError(undefined);
    const answer = await save(rulesWithoutField(rules, field));
    if (answer.ok) setStatus(`Removed ${customFieldTypeLabel(field.list)} ${field.name}.`);
    else setRemoveError(messagesOf(answer.errors));
  };

  return (
    <section aria-labelledby="custom-fields-title">
      <div class="row-head">
        <h2 id="custom-fields-title">Custom Fields</h2>
        {ruleset !== undefined && (
          <button
            type="button"
            aria-pressed={editing}
            onClick={() => {
              setEditing(!editing);
              setAdding(false);
            }}
          >
            {editing ? 'Done editing' : 'Edit Custom Fields'}
          </button>
        )}
      </div>
      <p class="intro">
        Custom fields add request headers, response headers and cookies to the exported logs, in the <code>RequestHeaders</code>,{' '}
        <code>ResponseHeaders</code> and <code>Cookies</code> fields. A job writes them when its fields include those names.
      </p>
      <p role="status" class="status">
        {status}
      </p>
      {loadError !== undefined && (
        <p class="error-banner" role="alert">
          The custom fields could not be loaded: {loadError}
        </p>
      )}
      {ruleset === undefined && loadError === undefined && <p class="loading">Loading custom fields…</p>}
      {ruleset !== undefined && (
        <>
          <table class="data-table">
            <caption>{fields.length === 1 ? '1 custom field' : `${fields.length} custom fields`} configured for {props.zone.name}</caption>
            <thead>
              <tr>
                <th scope="col">Field Type</th>
                <th scope="col">Field Name</th>
                {editing && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {fields.length === 0 && (
                <tr>
                  <td colSpan={editing ? 3 : 2} class="muted">
                    No custom fields yet. Choose “Edit Custom Fields”, then “Set new Custom Field”.
                  </td>
                </tr>
              )}
              {fields.map((field) => (
                <tr key={`${field.list}:${field.name}`}>
                  <td>{customFieldTypeLabel(field.list)}</td>
                  <td>
                    <code>{field.name}</code>
                    {!field.captured && <span class="badge muted"> rule disabled: not captured</span>}
                  </td>
                  {editing && (
                    <td>
                      <button
                        type="button"
                        class="link-button danger"
                        aria-label={`Remove ${customFieldTypeLabel(field.list)} ${field.name}`}
                        onClick={() => void remove(field)}
                      >
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          {removeError !== undefined && (
            <p class="error-banner" role="alert">
              {removeError}
            </p>
          )}
          {editing && !adding && (
            <button
              type="button"
              class="primary"
              onClick={() => {
                setAdding(true);
                setStatus('');
              }}
            >
              Set new Custom Field
            </button>
          )}
          {editing && adding && <CustomFieldForm onSave={add} onCancel={() => setAdding(false)} />}
        </>
      )}
    </section>
  );
}
