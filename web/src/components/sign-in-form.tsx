import { useState } from 'preact/hooks';
import { callApi, messagesOf } from '../api/api-client.ts';
import type { Session } from '../api/session.ts';
import { FieldError } from './field-error.tsx';

/** The sign-in screen: e-mail and password; a failure says only that the pair is wrong. */
export function SignInForm(props: { readonly notice: string | undefined; readonly onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const answer = await callApi<Session>('POST', '/session', { body: { email, password } });
    setBusy(false);
    if (answer.ok) props.onSignedIn(answer.result);
    else setError(messagesOf(answer.errors));
  };

  return (
    <main id="main" class="sign-in">
      <form class="card" onSubmit={submit} aria-labelledby="sign-in-title" noValidate>
        <h1 id="sign-in-title">Sign in to logexport</h1>
        {props.notice !== undefined && <p class="notice">{props.notice}</p>}
        <div class="field">
          <label for="sign-in-email">E-mail</label>
          <input
            id="sign-in-email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="sign-in-password">Password</label>
          <input
            id="sign-in-password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            aria-invalid={error !== undefined}
            aria-describedby={error !== undefined ? 'sign-in-error' : undefined}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <FieldError id="sign-in-error" message={error} />
        </div>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="hint">
          Accounts are made on the server: <code>npx logexport users create --email you@example.com --password …</code>
        </p>
      </form>
    </main>
  );
}
