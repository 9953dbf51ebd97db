import { useState } from 'preact/hooks';
import { type ApiError, checkToken, setToken, UNAUTHORIZED_HINT } from '../api/client';

/** The sign-in page: the API token is pasted once and kept for this tab only (sessionStorage). */
export function Login({ message, onDone }: { message?: string | undefined; onDone: () => void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    const token = value.trim();
    if (token === '') {
      setError('Paste the token first.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await checkToken(token);
      setToken(token);
      onDone();
    } catch (err) {
      const e = err as ApiError;
      setError(e.status === 401 ? `The server rejected this token (HTTP 401). ${UNAUTHORIZED_HINT}` : e.message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="card" onSubmit={submit} data-testid="login">
        <h1>tmkit dashboard</h1>
        <p>Paste the API token of this tmkit serve. It is kept for this browser tab only and sent with every request.</p>
        {message && !error ? (
          <p class="notice" data-testid="login-message">
            {message}
          </p>
        ) : null}
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
          data-testid="token"
        />
        {/* Where the token is, said once: in the error or the notice when they say it, else here. */}
        {(error ?? message ?? '').includes(UNAUTHORIZED_HINT) ? null : <p class="hint">{UNAUTHORIZED_HINT}</p>}
        {error ? (
          <p class="error" role="alert" data-testid="login-error">
            {error}
          </p>
        ) : null}
        <button type="submit" disabled={busy} data-testid="sign-in">
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
