import { useEffect, useState } from 'preact/hooks';
import { decisions } from '../api/client';
import type { DecisionRecord, DecisionsReport } from '../api/types';

/** How often the list is asked again. */
const REFRESH_MS = 5_000;

/**
 * "Recent answers": real queries this node answered for the profile and why (`GET /v1/decisions`, the decision
 * log, docs/observability.md), newest first, optionally for one client address or prefix. Where "Resolve as"
 * asks what a client *would* get, this says what clients *got*.
 */
export function RecentAnswers({ profile }: { profile: string }) {
  const [client, setClient] = useState('');
  const [asked, setAsked] = useState('');
  const [report, setReport] = useState<DecisionsReport | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(undefined);

  useEffect(() => {
    const ctl = new AbortController();
    const load = () =>
      decisions(profile, asked || undefined, ctl.signal).then(
        (r) => {
          setReport(r);
          setError(undefined);
        },
        (err: Error) => {
          if (!ctl.signal.aborted) setError(err.message);
        },
      );
    void load();
    const t = setInterval(() => void load(), REFRESH_MS);
    return () => {
      ctl.abort();
      clearInterval(t);
    };
  }, [profile, asked]);

  const rows = report ? [...report.decisions].reverse() : [];
  return (
    <div class="recent-answers" data-testid="recent-answers">
      <form
        class="inline"
        onSubmit={(ev) => {
          ev.preventDefault();
          setAsked(client.trim());
        }}
      >
        <label>
          Client address or prefix{' '}
          <input value={client} onInput={(e) => setClient((e.target as HTMLInputElement).value)} data-testid="answers-client" size={28} />
        </label>
        <button type="submit" data-testid="answers-go">
          Show
        </button>
        {report && report.sample > 1 ? <span class="muted"> every {report.sample}th query is kept</span> : null}
      </form>
      {error ? (
        <p class="error" role="alert" data-testid="answers-error">
          {error}
        </p>
      ) : null}
      {report && report.sample === 0 ? (
        <p class="muted">This node keeps no decision log (serve --decision-sample 0).</p>
      ) : rows.length === 0 ? (
        <p class="muted" data-testid="answers-empty">
          No answers recorded{asked ? ` for ${asked}` : ''} yet.
        </p>
      ) : (
        <table class="grid small" data-testid="answers">
          <thead>
            <tr>
              <th>Time</th>
              <th>Client</th>
              <th>Question</th>
              <th>Answered</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d, i) => {
              const key = `${d.t}-${i}`;
              return (
                <tr key={key} data-testid="answer-row" onClick={() => setOpen(open === key ? undefined : key)}>
                  <td>{d.t.slice(11, 23)}</td>
                  <td>
                    {d.client}
                    {d.client !== d.source ? <span class="muted"> (ECS, from {d.source})</span> : null} {d.proto}
                  </td>
                  <td>
                    {d.qtype} {d.rcode}
                  </td>
                  <td data-testid="answer-endpoints">{d.endpoints.join(', ') || '—'}</td>
                  <td data-testid="answer-rule">
                    {d.rule}
                    {flags(d)}
                    {open === key ? (
                      <ol class="why">
                        {d.steps.map((s, j) => (
                          <li key={j}>
                            <span class="muted">
                              {s.profile}
                              {s.endpoint ? `/${s.endpoint}` : ''} · {s.kind}
                            </span>{' '}
                            {s.detail}
                          </li>
                        ))}
                      </ol>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}

function flags(d: DecisionRecord): string {
  const f = [
    d.allDegraded ? 'all-degraded fallback' : '',
    d.drill ? `drill ${d.drill}` : '',
    ...(d.overrides ?? []).map((o) => `override ${o}`),
    d.truncated ? 'truncated' : '',
  ].filter(Boolean);
  return f.length > 0 ? ` [${f.join('; ')}]` : '';
}
