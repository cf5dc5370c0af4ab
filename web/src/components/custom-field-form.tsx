import { useEffect, useRef, useState } from 'preact/hooks';
import { customFieldTypes, type CustomFieldList } from '../model/custom-field.ts';
import { FieldError } from './field-error.tsx';

/**
 * "Set new Custom Field": a Field Type and a Field Name, then Save. `onSave` answers the API's message
 * when the field is refused; it is shown beside the name.
 */
export function CustomFieldForm(props: {
  readonly onSave: (field: { list: CustomFieldList; name: string }) => Promise<string | undefined>;
  readonly onCancel: () => void;
}) {
  const [list, setList] = useState<CustomFieldList>('request_fields');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const typeRef = useRef<HTMLSelectElement>(null);

  useEffect(() => typeRef.current?.focus(), []);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (name.trim() === '') {
      setError('Enter the name of the header or cookie.');
      return;
    }
    setBusy(true);
    setError(await props.onSave({ list, name: name.trim() }));
    setBusy(false);
  };

  return (
    <form class="card inline-form" onSubmit={submit} aria-labelledby="new-field-title" noValidate>
      <h3 id="new-field-title">Set new Custom Field</h3>
      <div class="form-row">
        <div class="field">
          <label for="custom-field-type">Field Type</label>
          <select id="custom-field-type" ref={typeRef} value={list} onChange={(e) => setList(e.currentTarget.value as CustomFieldList)}>
            {customFieldTypes.map((t) => (
              <option key={t.list} value={t.list}>
                {t.label}
              </option>
            ))}
          </select>
        </div>
        <div class="field grow">
          <label for="custom-field-name">Field Name</label>
          <input
            id="custom-field-name"
            type="text"
            value={name}
            spellcheck={false}
            autoComplete="off"
            aria-invalid={error !== undefined}
            aria-describedby={error !== undefined ? 'custom-field-name-error custom-field-name-hint' : 'custom-field-name-hint'}
            onInput={(e) => {
              setName(e.currentTarget.value);
              setError(undefined);
            }}
          />
          <p id="custom-field-name-hint" class="hint">
            {list === 'cookie_fields'
              ? 'The cookie name exactly as the browser sends it (case matters), e.g. SessionID.'
              : 'The header name in lower case, e.g. x-forwarded-for.'}
          </p>
          <FieldError id="custom-field-name-error" message={error} />
        </div>
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Save
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
