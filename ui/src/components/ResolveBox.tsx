import { useEffect, useRef, useState } from 'preact/hooks';
import { resolve } from '../api/client';
import type { ResolveResult } from '../api/types';
import { percent } from '../lib/format';

/**
 * "Resolve as": what the DNS server would answer a client at this IP now, and why (`POST /v1/resolve`).
 * The last query is asked again whenever `version` changes (the profile's status moved), so the answer
 * shown is always the current one.
 */
export function ResolveBox({ fqdn, version, defaultIp = '127.0.0.1' }: { fqdn: string; version: string; defaultIp?: string }) {
  const [ip, setIp] = useState(defaultIp);
  const [type, setType] = useState('A');
  const [asked, setAsked] = useState<{ ip: string; type: string } | undefined>(undefined);
  const [result, setResult] = useState<ResolveResult | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const seq = useRef(0);

  const run = async (q: { ip: string; type: string }) => {
    const n = ++seq.current;
    try {
      const r = await resolve({ name: fqdn, type: q.type, clientIp: q.ip });
      if (n === seq.current) {
        setResult(r);
        setError(undefined);
      }
    } catch (err) {
      if (n === seq.current) {
        setError((err as Error).message);
        setResult(undefined);
      }
    }
  };

  useEffect(() => {
    if (asked) void run(asked);
  }, [asked, version, fqdn]);

  const submit = (ev: Event) => {
    ev.preventDefault();
    const q = { ip: ip.trim(), type };
    setAsked(q); // a new object: the effect asks again even for the same query
  };

  return (
    <div class="resolve" data-testid="resolve">
      <form onSubmit={submit} class="inline">
        <label>
          Client IP <input value={ip} onInput={(e) => setIp((e.target as HTMLInputElement).value)} data-testid="resolve-ip" size={28} />
        </label>
        <label>
          Type{' '}
          <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)} data-testid="resolve-type">
            {['A', 'AAAA', 'CNAME', 'ANY'].map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" data-testid="resolve-go">
          Resolve
        </button>
        <span class="muted">{fqdn}</span>
      </form>
      {error ? (
        <p class="error" role="alert" data-testid="resolve-error">
          {error}
        </p>
      ) : null}
      {result ? (
        <div data-testid="resolve-result" data-revision={result.revision}>
          <p>
            <strong data-testid="resolve-rcode">
              {result.rcode}
              {result.rcode === 'NOERROR' && result.records.length === 0 ? ' (NODATA)' : ''}
            </strong>{' '}
            for {result.query.clientIp}
            {result.clientDependent ? ' (the answer depends on the client address)' : ''}, store revision {result.revision}
          </p>
          <pre class="records" data-testid="resolve-records">
            {result.records.length === 0
              ? '(no records)'
              : result.records.map((r) => `${r.name}. ${r.ttl} IN ${r.type} ${r.data}`).join('\n')}
          </pre>
          <p>
            Endpoint: <strong data-testid="resolve-endpoints">{result.endpoints.join(', ') || 'none'}</strong>
          </p>
          {result.outcomes.length > 1 ? (
            <table class="grid small">
              <thead>
                <tr>
                  <th>Possible answer</th>
                  <th>Probability</th>
                </tr>
              </thead>
              <tbody>
                {result.outcomes.map((o) => (
                  <tr key={o.endpoints.join(',')}>
                    <td>{o.endpoints.join(', ') || 'no answer'}</td>
                    <td>{percent(o.probability)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          <h3>Why</h3>
          <ol class="why" data-testid="resolve-why">
            {result.explanation.map((s, i) => (
              <li key={i}>
                <span class="muted">
                  {s.profile}
                  {s.endpoint ? `/${s.endpoint}` : ''} · {s.kind}
                </span>{' '}
                {s.detail}
              </li>
            ))}
          </ol>
        </div>
      ) : null}
    </div>
  );
}
